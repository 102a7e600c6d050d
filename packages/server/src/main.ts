import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './platform/config.ts';
import { ensureAdministrator } from './modules/users/bootstrap.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const app = await buildApp(config);
  const admin = await ensureAdministrator(app.ctx);
  await app.listen({ port: config.port, host: config.host });
  if (admin) {
    const lines = [
      '',
      '  The first administrator account was created.',
      `  Log in at ${config.publicUrl}/login as ${admin.email}`,
      admin.password ? `  with the password ${admin.password}  (shown only this once; change it after logging in)` : '  with the password from ADMIN_PASSWORD.',
      '',
    ];
    console.log(lines.join('\n'));
  }
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
