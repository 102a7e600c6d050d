import type { OutgoingMail } from './outbox.ts';

/** What a mail says; the layout around it (product name, logo, button) is the same for every mail. */
export interface MailContent {
  locale: string;
  productName: string;
  /** Absolute URL of the logo, or null for the name alone. */
  logoUrl: string | null;
  subject: string;
  greeting: string;
  /** Paragraphs before the button. */
  intro: string[];
  action: { label: string; url: string };
  /** Paragraphs after the button (how long the link works, what to do if it was not you). */
  outro: string[];
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** A mail in plain text and HTML (inline styles: mail programs ignore style sheets). */
export function renderMail(content: MailContent): Omit<OutgoingMail, 'to'> {
  const text = [
    content.productName,
    '',
    content.greeting,
    '',
    ...content.intro.flatMap((paragraph) => [paragraph, '']),
    `${content.action.label}:`,
    content.action.url,
    '',
    ...content.outro.flatMap((paragraph) => [paragraph, '']),
    '-- ',
    content.productName,
    '',
  ].join('\n');

  const paragraph = (value: string) => `<p style="margin:0 0 16px;line-height:1.5">${escapeHtml(value)}</p>`;
  const url = escapeHtml(content.action.url);
  const brand = content.logoUrl
    ? `<img src="${escapeHtml(content.logoUrl)}" alt="${escapeHtml(content.productName)}" style="max-height:48px;max-width:240px;border:0">`
    : `<span style="font-size:20px;font-weight:700;color:#ffffff">${escapeHtml(content.productName)}</span>`;
  const html = `<!doctype html>
<html lang="${escapeHtml(content.locale)}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:0;background:#f1f3f5;font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#212529">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f1f3f5;padding:24px 0">
<tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:#1a1b1e;padding:16px 24px">${brand}</td></tr>
<tr><td style="padding:24px">
${paragraph(content.greeting)}
${content.intro.map(paragraph).join('\n')}
<p style="margin:24px 0"><a href="${url}" style="display:inline-block;background:#228be6;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:6px;font-weight:600">${escapeHtml(content.action.label)}</a></p>
<p style="margin:0 0 16px;font-size:13px;color:#495057;word-break:break-all">${url}</p>
${content.outro.map(paragraph).join('\n')}
</td></tr>
<tr><td style="padding:16px 24px;font-size:12px;color:#868e96;border-top:1px solid #e9ecef">${escapeHtml(content.productName)}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
`;
  return { subject: content.subject, text, html };
}
