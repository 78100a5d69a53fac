/** The completion script for one shell, from the registry (see ./model.ts). */
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionModel, type CompletionModel, type Shell } from './model.js';
import { zshScript } from './zsh.js';

export { SHELLS, type Shell } from './model.js';

export function completionScript(shell: Shell, version: string, model: CompletionModel = completionModel()): string {
  switch (shell) {
    case 'bash':
      return bashScript(model, version);
    case 'zsh':
      return zshScript(model, version);
    case 'fish':
      return fishScript(model, version);
  }
}
