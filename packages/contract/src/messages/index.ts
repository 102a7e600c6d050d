import type { Locale } from '../constants.ts';
import type { MessageCatalog } from '../messages.ts';
import de from './de.ts';
import en from './en.ts';
import es from './es.ts';
import fr from './fr.ts';
import it from './it.ts';

/** Every language's texts at once, for the server (the web app loads only the one in use). */
export const MESSAGE_CATALOGS: Record<Locale, MessageCatalog> = { de, en, es, fr, it };
