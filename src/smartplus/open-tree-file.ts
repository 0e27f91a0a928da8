import { closeSync, constants, fstatSync, lstatSync, openSync, type Stats } from "node:fs";
import { join } from "node:path";

/**
 * Opens a regular file of an extracted tree for reading without following any link: every folder
 * on the way from `root` is checked with `lstat`, the file itself opened with `O_NOFOLLOW` (and
 * `O_NONBLOCK`, so a pipe cannot hang the open) and checked with `fstat`. Null when any of them is
 * a link, missing, or not a folder / regular file. (Only this process writes the tree, so nothing
 * can swap a folder for a link in between.)
 */
export function openTreeFile(root: string, path: string): { fd: number; stat: Stats } | null {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const stat = lstatSync(join(root, ...parts.slice(0, i)), { throwIfNoEntry: false });
    if (!stat?.isDirectory()) return null;
  }
  let fd: number;
  try {
    fd = openSync(join(root, path), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  const stat = fstatSync(fd);
  if (stat.isFile()) return { fd, stat };
  closeSync(fd);
  return null;
}
