/** Text to be matched as it is inside a RegExp built from a template: every character with a meaning escaped. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
