# bash completion for futurerun
_futurerun() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -a|--arg-file|--joblog|--json|--junit) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        -C|--workdir|--results) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --ci) COMPREPLY=($(compgen -W "auto github gitlab none" -- "$cur")); return ;;
        --halt) COMPREPLY=($(compgen -W "now soon now,fail=1 soon,fail=1 now,success=1" -- "$cur")); return ;;
        --shell) COMPREPLY=($(compgen -c -- "$cur")); return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "-j --jobs -a --arg-file --each --link -0 --null --shell -C --workdir --timeout --grace --retries --fail-fast --halt --delay --dry-run -q --quiet -v --verbose --tag --live --line-buffer --names --quiet-success --color --progress --no-progress --ci --joblog --json --junit --results -h --help --version" -- "$cur"))
    else
        COMPREPLY=($(compgen -c -- "$cur"))
    fi
}
complete -F _futurerun futurerun
