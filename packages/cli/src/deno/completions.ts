/**
 * `xmd completions bash|zsh|fish`: a completion script for the shell, made
 * from the same command declarations the parser uses, so it never offers an
 * option the parser refuses. Run ids are completed for workflow commands
 * that take one, by asking `xmd completions --run-ids` (it lists the runs
 * folder's runs; nothing is locked or run).
 *
 * @module
 */
import type { CommandSpec } from "./command-line.ts";
import { UsageError } from "./usage-error.ts";
import { WORKFLOW_COMMANDS } from "./workflow-commands.ts";

/** The shells a script can be printed for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

const TOP = ["run", "workflow", "completions", "--help", "--version"];
const RUN_OPTIONS = [
  "--journal",
  "--replay",
  "--answer",
  "--props",
  "--no-secret-detection",
  "--help",
];

function options(spec: CommandSpec): string[] {
  return [...spec.options.map((option) => `--${option.name.replace("<name>", "")}`), "--help"];
}

function takesRunId(spec: CommandSpec): boolean {
  return spec.positionals[0] === "<run-id>";
}

/** The completion script for `shell`. */
export function completionScript(shell: string): string {
  switch (shell) {
    case "bash":
      return bash();
    case "zsh":
      return `autoload -U +X bashcompinit && bashcompinit\n${bash()}`;
    case "fish":
      return fish();
  }
  throw new UsageError(
    `Cannot write completions for "${shell}": use one of ${SHELLS.join(", ")}`,
  );
}

function bash(): string {
  const cases = Object.entries(WORKFLOW_COMMANDS).map(([name, spec]) =>
    `      ${name}) words="${options(spec).join(" ")}"; ids=${takesRunId(spec) ? 1 : 0} ;;`
  );
  return `# xmd completions for bash: eval "$(xmd completions bash)"
_xmd() {
  local cur=\${COMP_WORDS[COMP_CWORD]} words="" ids=0
  if [ "$COMP_CWORD" -eq 1 ]; then
    words="${TOP.join(" ")}"
  elif [ "\${COMP_WORDS[1]}" = run ]; then
    words="${RUN_OPTIONS.join(" ")}"
    [[ $cur == -* ]] || { COMPREPLY=($(compgen -f -- "$cur")); return; }
  elif [ "\${COMP_WORDS[1]}" = completions ]; then
    words="${SHELLS.join(" ")}"
  elif [ "\${COMP_WORDS[1]}" = workflow ]; then
    if [ "$COMP_CWORD" -eq 2 ]; then
      words="${Object.keys(WORKFLOW_COMMANDS).join(" ")}"
    else
      case "\${COMP_WORDS[2]}" in
${cases.join("\n")}
      esac
      if [ "\${COMP_WORDS[2]}" = start ] && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -f -- "$cur")); return
      fi
      if [ "$ids" = 1 ] && [ "$COMP_CWORD" -eq 3 ] && [[ $cur != -* ]]; then
        words="$(xmd completions --run-ids 2>/dev/null)"
      fi
    fi
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _xmd xmd
`;
}

function fish(): string {
  const lines = [
    "# xmd completions for fish: xmd completions fish | source",
    "complete -c xmd -f",
    `complete -c xmd -n __fish_use_subcommand -a "${
      TOP.filter((w) => !w.startsWith("-")).join(" ")
    }"`,
    `complete -c xmd -n "__fish_seen_subcommand_from completions" -a "${SHELLS.join(" ")}"`,
    `complete -c xmd -n "__fish_seen_subcommand_from workflow; and not __fish_seen_subcommand_from ${
      Object.keys(WORKFLOW_COMMANDS).join(" ")
    }" -a "${Object.keys(WORKFLOW_COMMANDS).join(" ")}"`,
  ];
  for (const [name, spec] of Object.entries(WORKFLOW_COMMANDS)) {
    for (const option of spec.options) {
      if (option.name.includes("<")) continue;
      lines.push(
        `complete -c xmd -n "__fish_seen_subcommand_from ${name}" -l ${option.name}${
          option.value ? " -r" : ""
        } -d ${JSON.stringify(option.description)}`,
      );
    }
    if (takesRunId(spec)) {
      lines.push(
        `complete -c xmd -n "__fish_seen_subcommand_from ${name}" -a "(xmd completions --run-ids 2>/dev/null)"`,
      );
    }
  }
  return lines.join("\n") + "\n";
}
