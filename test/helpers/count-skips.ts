import type { ParseScope } from "../../src/pipeline/create-parse-memo.ts";

/** `scope`, with `onSkip` called for each element its scans pass over as the account's last body had it (see ParseScope.skipper). */
export function countSkips(scope: ParseScope, onSkip: () => void): ParseScope {
  return {
    read: (...args) => scope.read(...args),
    skipper(bytes) {
      const skip = scope.skipper!(bytes);
      return (...args) => {
        const end = skip(...args);
        if (end >= 0) onSkip();
        return end;
      };
    },
  };
}
