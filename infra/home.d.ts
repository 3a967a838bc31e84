export interface HomeLayout {
  /** No .git beside the package: installed from a tarball or the registry. */
  installed: boolean;
  /** Caches, models, the Temporal database, python.json. */
  state: string;
  /** The Python venv with infra/requirements.txt (the temporal binary, pyarrow, ...). */
  venv: string;
  /** Where `--run <id>` resolves. */
  runs: string;
}
export function homeLayout(root: string, env?: Readonly<Record<string, string | undefined>>, cwd?: string, userHome?: string): HomeLayout;
