package dev.capstan.cli;

/**
 * The shell completion scripts {@code capstan completion bash|zsh|fish} prints. Each is a thin
 * function that asks the command line itself what may come next ({@code capstan __complete
 * WORD...}, {@link CompleteCommand}), as kubectl's and helm's scripts do: commands, options and
 * fixed values come from the same tree that parses them, and release names, namespaces and contexts
 * from the cluster the typed words choose. The script runs the command as it was typed ({@code
 * capstan} or {@code ./capstan}), so through the launcher's daemon an answer takes milliseconds.
 */
final class CompletionScripts {
  private CompletionScripts() {}

  /**
   * For bash, and for zsh through its bash emulation ({@code bashcompinit}, loaded by the script
   * when zsh runs it): {@code source <(capstan completion bash)}.
   */
  static String bash() {
    return """
        # capstan completion for bash and zsh: source <(capstan completion bash)
        if [ -n "${ZSH_VERSION:-}" ]; then
          autoload -U +X compinit && compinit
          autoload -U +X bashcompinit && bashcompinit
        fi
        _complete_capstan() {
          local cur=${COMP_WORDS[COMP_CWORD]} out
          out=$("${COMP_WORDS[0]}" __complete -- "${COMP_WORDS[@]:1:COMP_CWORD-1}" "$cur" 2>/dev/null) ||
            return 0
          if [ "$out" = ":files" ]; then
            compopt -o filenames 2>/dev/null
            COMPREPLY=($(compgen -f -- "$cur"))
            return 0
          fi
          local IFS=$'\\n'
          COMPREPLY=($(compgen -W "$out" -- "$cur"))
        }
        complete -o default -F _complete_capstan capstan ./capstan
        """;
  }

  /** For fish: {@code capstan completion fish | source}. */
  static String fish() {
    return """
        # capstan completion for fish: capstan completion fish | source
        function __capstan_complete
            set -l words (commandline -opc)
            set -l current (commandline -ct)
            set -l out ($words[1] __complete -- $words[2..-1] "$current" 2>/dev/null)
            if test "$out" = ":files"
                __fish_complete_path "$current"
                return
            end
            printf '%s\\n' $out
        end
        complete -c capstan -f -a '(__capstan_complete)'
        complete -c ./capstan -f -a '(__capstan_complete)'
        """;
  }
}
