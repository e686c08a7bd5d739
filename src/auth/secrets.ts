/** Random secrets and their stored hashes: defined in the domain (src/domain/secrets.ts), used by auth/ too. */
export { hashSecret, newSecret } from '../domain/secrets.ts';
