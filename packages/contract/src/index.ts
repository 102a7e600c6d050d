export * from './constants.ts';
export * from './errors.ts';
export * from './ability.ts';
export * from './list.ts';
export * from './user.ts';
export * from './session.ts';
export * from './settings.ts';
