export * from './workspaces';
export * from './verifications';
export * from './consent';
export * from './ops';
export * from './webhooks';
export * from './faces';
export * from './retention';
