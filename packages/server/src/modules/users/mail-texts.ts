import type { Locale } from '@lm/contract';

export type AccountMailKind = 'confirmRegistration' | 'resetPassword' | 'changeEmail';

interface MailText {
  subject: string;
  intro: string;
  action: string;
  outro: string;
}

interface LocaleTexts {
  greeting: string;
  mails: Record<AccountMailKind, MailText>;
}

/** The account mails in the five languages; {product}, {email} and {hours} are filled in. */
export const ACCOUNT_MAIL_TEXTS: Record<Locale, LocaleTexts> = {
  en: {
    greeting: 'Hello,',
    mails: {
      confirmRegistration: {
        subject: 'Confirm your registration at {product}',
        intro: 'Thank you for registering at {product} with the address {email}. Please confirm that this address is yours:',
        action: 'Confirm registration',
        outro: 'The link works once and for {hours} hours. If you did not register, ignore this mail: no account is activated without confirmation.',
      },
      resetPassword: {
        subject: 'Reset your password at {product}',
        intro: 'Someone asked to reset the password of the account {email} at {product}. Set a new password here:',
        action: 'Set a new password',
        outro: 'The link works once and for {hours} hours. If you did not ask for this, ignore this mail: your password stays as it is.',
      },
      changeEmail: {
        subject: 'Confirm your new e-mail address at {product}',
        intro: 'You asked to change the e-mail address of your account at {product} to {email}. Please confirm that this address is yours:',
        action: 'Confirm new address',
        outro: 'The link works once and for {hours} hours. Your account keeps its current address until you confirm. If you did not ask for this, ignore this mail.',
      },
    },
  },
  de: {
    greeting: 'Guten Tag,',
    mails: {
      confirmRegistration: {
        subject: 'Bestätigen Sie Ihre Registrierung bei {product}',
        intro: 'vielen Dank für Ihre Registrierung bei {product} mit der Adresse {email}. Bitte bestätigen Sie, dass diese Adresse Ihnen gehört:',
        action: 'Registrierung bestätigen',
        outro: 'Der Link ist einmal und {hours} Stunden lang gültig. Wenn Sie sich nicht registriert haben, ignorieren Sie diese E-Mail: Ohne Bestätigung wird kein Konto aktiviert.',
      },
      resetPassword: {
        subject: 'Passwort zurücksetzen bei {product}',
        intro: 'für das Konto {email} bei {product} wurde das Zurücksetzen des Passworts angefordert. Hier können Sie ein neues Passwort festlegen:',
        action: 'Neues Passwort festlegen',
        outro: 'Der Link ist einmal und {hours} Stunden lang gültig. Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail: Ihr Passwort bleibt unverändert.',
      },
      changeEmail: {
        subject: 'Bestätigen Sie Ihre neue E-Mail-Adresse bei {product}',
        intro: 'Sie möchten die E-Mail-Adresse Ihres Kontos bei {product} in {email} ändern. Bitte bestätigen Sie, dass diese Adresse Ihnen gehört:',
        action: 'Neue Adresse bestätigen',
        outro: 'Der Link ist einmal und {hours} Stunden lang gültig. Bis zur Bestätigung behält Ihr Konto die bisherige Adresse. Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail.',
      },
    },
  },
  es: {
    greeting: 'Hola:',
    mails: {
      confirmRegistration: {
        subject: 'Confirme su registro en {product}',
        intro: 'Gracias por registrarse en {product} con la dirección {email}. Confirme que esta dirección le pertenece:',
        action: 'Confirmar registro',
        outro: 'El enlace funciona una sola vez y durante {hours} horas. Si usted no se ha registrado, ignore este correo: ninguna cuenta se activa sin confirmación.',
      },
      resetPassword: {
        subject: 'Restablezca su contraseña en {product}',
        intro: 'Se ha solicitado restablecer la contraseña de la cuenta {email} en {product}. Establezca una nueva contraseña aquí:',
        action: 'Establecer una nueva contraseña',
        outro: 'El enlace funciona una sola vez y durante {hours} horas. Si usted no lo ha solicitado, ignore este correo: su contraseña no cambia.',
      },
      changeEmail: {
        subject: 'Confirme su nueva dirección de correo en {product}',
        intro: 'Ha solicitado cambiar la dirección de correo de su cuenta en {product} a {email}. Confirme que esta dirección le pertenece:',
        action: 'Confirmar la nueva dirección',
        outro: 'El enlace funciona una sola vez y durante {hours} horas. Su cuenta conserva la dirección actual hasta que la confirme. Si usted no lo ha solicitado, ignore este correo.',
      },
    },
  },
  fr: {
    greeting: 'Bonjour,',
    mails: {
      confirmRegistration: {
        subject: 'Confirmez votre inscription à {product}',
        intro: "Merci pour votre inscription à {product} avec l'adresse {email}. Veuillez confirmer que cette adresse vous appartient :",
        action: "Confirmer l'inscription",
        outro: "Le lien fonctionne une seule fois et pendant {hours} heures. Si vous ne vous êtes pas inscrit, ignorez ce message : aucun compte n'est activé sans confirmation.",
      },
      resetPassword: {
        subject: 'Réinitialisez votre mot de passe sur {product}',
        intro: 'Une réinitialisation du mot de passe du compte {email} sur {product} a été demandée. Choisissez un nouveau mot de passe ici :',
        action: 'Choisir un nouveau mot de passe',
        outro: "Le lien fonctionne une seule fois et pendant {hours} heures. Si vous n'avez rien demandé, ignorez ce message : votre mot de passe reste inchangé.",
      },
      changeEmail: {
        subject: 'Confirmez votre nouvelle adresse e-mail sur {product}',
        intro: "Vous avez demandé à remplacer l'adresse e-mail de votre compte sur {product} par {email}. Veuillez confirmer que cette adresse vous appartient :",
        action: 'Confirmer la nouvelle adresse',
        outro: "Le lien fonctionne une seule fois et pendant {hours} heures. Votre compte garde son adresse actuelle jusqu'à la confirmation. Si vous n'avez rien demandé, ignorez ce message.",
      },
    },
  },
  it: {
    greeting: 'Buongiorno,',
    mails: {
      confirmRegistration: {
        subject: 'Conferma la tua registrazione a {product}',
        intro: "Grazie per esserti registrato a {product} con l'indirizzo {email}. Conferma che questo indirizzo è tuo:",
        action: 'Conferma la registrazione',
        outro: 'Il link funziona una sola volta e per {hours} ore. Se non ti sei registrato, ignora questa e-mail: nessun account viene attivato senza conferma.',
      },
      resetPassword: {
        subject: 'Reimposta la tua password su {product}',
        intro: "È stata richiesta la reimpostazione della password dell'account {email} su {product}. Imposta una nuova password qui:",
        action: 'Imposta una nuova password',
        outro: "Il link funziona una sola volta e per {hours} ore. Se non l'hai richiesto tu, ignora questa e-mail: la tua password resta invariata.",
      },
      changeEmail: {
        subject: 'Conferma il tuo nuovo indirizzo e-mail su {product}',
        intro: "Hai chiesto di cambiare l'indirizzo e-mail del tuo account su {product} in {email}. Conferma che questo indirizzo è tuo:",
        action: 'Conferma il nuovo indirizzo',
        outro: "Il link funziona una sola volta e per {hours} ore. Il tuo account mantiene l'indirizzo attuale fino alla conferma. Se non l'hai richiesto tu, ignora questa e-mail.",
      },
    },
  },
};
