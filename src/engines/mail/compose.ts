type MimeMessage = ReturnType<typeof import("mimetext/browser").createMimeMessage>;

/**
 * Renders one message as RFC 5322 text with mimetext (the maintained MIME builder that runs in Workers; its browser
 * build, because the Node build takes its line ends from node:os, and SMTP wants CRLF). Subjects and display names are
 * encoded words when they are not ASCII; both parts are UTF-8 in base64, so no line of a body can break the transport.
 */
export interface Composition {
  messageId: string;
  /** `Name <address>` or a bare address. */
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Optional mail: the one-click unsubscribe link (RFC 8058) for List-Unsubscribe. */
  unsubscribeUrl?: string;
}

const encoder = new TextEncoder();

/** Base64 of the UTF-8 bytes, in lines of 76 characters (RFC 2045). */
function base64Lines(value: string): string {
  let binary = "";
  for (const byte of encoder.encode(value)) binary += String.fromCharCode(byte);
  return (btoa(binary).match(/.{1,76}/g) ?? []).join("\r\n");
}

/** The address part of `Name <address>` (or the whole value when it is a bare address). */
export const addressOf = (mailbox: string) => /<([^<>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox.trim();

function parseMailbox(mailbox: string): { addr: string; name?: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^<>]+)>\s*$/.exec(mailbox);
  return match?.[1] ? { name: match[1], addr: match[2]! } : { addr: addressOf(mailbox) };
}

/**
 * The composer, once mimetext is loaded: it (with the core-js polyfills it brings) loads with the first mail rather
 * than at every isolate's startup (docs/architecture.md, "Cold start").
 */
export async function mimeComposer(): Promise<(c: Composition) => string> {
  const { createMimeMessage } = await import("mimetext/browser");
  return (c) => composeMime(createMimeMessage(), c);
}

function composeMime(message: MimeMessage, c: Composition): string {
  const from = parseMailbox(c.from);
  message.setSender(from);
  message.setTo({ addr: c.to });
  message.setSubject(c.subject);
  message.setHeader("Message-ID", `<${c.messageId}@${from.addr.slice(from.addr.lastIndexOf("@") + 1)}>`);
  message.setHeader("Auto-Submitted", "auto-generated");
  if (c.unsubscribeUrl) {
    message.setHeader("List-Unsubscribe", `<${c.unsubscribeUrl}>`);
    message.setHeader("List-Unsubscribe-Post", "List-Unsubscribe=One-Click");
  }
  message.addMessage({ contentType: "text/plain", charset: "UTF-8", encoding: "base64", data: base64Lines(c.text) });
  message.addMessage({ contentType: "text/html", charset: "UTF-8", encoding: "base64", data: base64Lines(c.html) });
  return message.asRaw();
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
/** Text made safe inside HTML (every value a customer or a run supplied goes through it). */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
