/** `npm run build`: the web app, built into packages/web/dist for the server to serve (the server itself runs from its TypeScript sources). */
import { buildWebApp } from './web-build.ts';

process.exit(buildWebApp() ? 0 : 1);
