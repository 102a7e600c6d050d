import type { Locale } from '@lm/contract';

export type AccountMailKind = 'confirmRegistration' | 'resetPassword' | 'changeEmail' | 'emailChanged' | 'twoFactorReset';

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

/** The account mails in the five languages; {product}, {email}, {newEmail} and {hours} are filled in. */
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
      emailChanged: {
        subject: 'The e-mail address of your account at {product} was changed',
        intro: 'The e-mail address of your account {email} at {product} was changed to {newEmail}. From now on you sign in with the new address, and our mails go there.',
        action: 'Sign in',
        outro: 'If you did not do this, tell the administrator at once: someone else may be using your account.',
      },
      twoFactorReset: {
        subject: 'Your second factor at {product} was reset',
        intro: 'An administrator of {product} turned off two-factor sign-in for your account {email}. You now sign in with your password alone.',
        action: 'Sign in',
        outro: 'Set up two-factor sign-in again under My account. If you did not ask for this, tell the administrator and change your password.',
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
      emailChanged: {
        subject: 'Die E-Mail-Adresse Ihres Kontos bei {product} wurde geändert',
        intro: 'die E-Mail-Adresse Ihres Kontos {email} bei {product} wurde in {newEmail} geändert. Ab jetzt melden Sie sich mit der neuen Adresse an, und unsere E-Mails gehen dorthin.',
        action: 'Anmelden',
        outro: 'Wenn Sie das nicht selbst waren, benachrichtigen Sie sofort den Administrator: Möglicherweise verwendet jemand anderes Ihr Konto.',
      },
      twoFactorReset: {
        subject: 'Ihr zweiter Faktor bei {product} wurde zurückgesetzt',
        intro: 'ein Administrator von {product} hat die Anmeldung mit zweitem Faktor für Ihr Konto {email} ausgeschaltet. Sie melden sich jetzt nur mit Ihrem Passwort an.',
        action: 'Anmelden',
        outro: 'Richten Sie die Anmeldung mit zweitem Faktor unter „Mein Konto“ wieder ein. Wenn Sie das nicht veranlasst haben, wenden Sie sich an den Administrator und ändern Sie Ihr Passwort.',
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
      emailChanged: {
        subject: 'Se ha cambiado la dirección de correo de su cuenta en {product}',
        intro: 'La dirección de correo de su cuenta {email} en {product} se ha cambiado a {newEmail}. A partir de ahora inicia sesión con la nueva dirección y nuestros correos llegarán allí.',
        action: 'Iniciar sesión',
        outro: 'Si no ha sido usted, avise de inmediato al administrador: es posible que otra persona esté usando su cuenta.',
      },
      twoFactorReset: {
        subject: 'Se ha restablecido su segundo factor en {product}',
        intro: 'Un administrador de {product} ha desactivado el inicio de sesión en dos pasos de su cuenta {email}. Ahora inicia sesión solo con su contraseña.',
        action: 'Iniciar sesión',
        outro: 'Vuelva a configurar el inicio de sesión en dos pasos en Mi cuenta. Si usted no lo ha solicitado, avise al administrador y cambie su contraseña.',
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
      emailChanged: {
        subject: 'L\'adresse e-mail de votre compte sur {product} a été modifiée',
        intro: 'L\'adresse e-mail de votre compte {email} sur {product} a été remplacée par {newEmail}. Désormais, vous vous connectez avec la nouvelle adresse, et nos e-mails y seront envoyés.',
        action: 'Se connecter',
        outro: 'Si vous n\'êtes pas à l\'origine de ce changement, prévenez immédiatement l\'administrateur : quelqu\'un d\'autre utilise peut-être votre compte.',
      },
      twoFactorReset: {
        subject: 'Votre second facteur sur {product} a été réinitialisé',
        intro: 'Un administrateur de {product} a désactivé la connexion en deux étapes de votre compte {email}. Vous vous connectez désormais avec votre seul mot de passe.',
        action: 'Se connecter',
        outro: 'Réactivez la connexion en deux étapes dans Mon compte. Si vous n\'avez rien demandé, prévenez l\'administrateur et changez votre mot de passe.',
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
      emailChanged: {
        subject: 'L\'indirizzo e-mail del tuo account su {product} è stato cambiato',
        intro: 'L\'indirizzo e-mail del tuo account {email} su {product} è stato cambiato in {newEmail}. D\'ora in poi accedi con il nuovo indirizzo e le nostre e-mail arriveranno lì.',
        action: 'Accedi',
        outro: 'Se non sei stato tu, avvisa subito l\'amministratore: qualcun altro potrebbe usare il tuo account.',
      },
      twoFactorReset: {
        subject: 'Il tuo secondo fattore su {product} è stato reimpostato',
        intro: 'Un amministratore di {product} ha disattivato l\'accesso in due passaggi per il tuo account {email}. Ora accedi solo con la tua password.',
        action: 'Accedi',
        outro: 'Riattiva l\'accesso in due passaggi in Il mio account. Se non l\'hai richiesto tu, avvisa l\'amministratore e cambia la password.',
      },
    },
  },
};
