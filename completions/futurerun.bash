# bash completion for futurerun: generated from the option table by 'make generate'; edit Sources/FutureRunOptions/OptionTable.swift
_futurerun() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    case $prev in
        -a|--arg-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --each) COMPREPLY=(); return ;;
        --header) COMPREPLY=(); return ;;
        --block|--block-size) COMPREPLY=(); return ;;
        --recend) COMPREPLY=(); return ;;
        --recstart) COMPREPLY=(); return ;;
        -I|--replace) COMPREPLY=(); return ;;
        -d|--delimiter) COMPREPLY=(); return ;;
        -E|--eof) COMPREPLY=(); return ;;
        -n|-N|--max-args|--max-replace-args) COMPREPLY=(); return ;;
        --colsep) COMPREPLY=(); return ;;
        --trim) COMPREPLY=($(compgen -W "n l r lr rl" -- "$cur")); return ;;
        -j|-P|--jobs|--max-procs) COMPREPLY=(); return ;;
        --shell) COMPREPLY=($(compgen -c -- "$cur")); return ;;
        --nice) COMPREPLY=(); return ;;
        -C|--workdir|--wd) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --timeout) COMPREPLY=(); return ;;
        --grace) COMPREPLY=(); return ;;
        --retries) COMPREPLY=(); return ;;
        --memfree) COMPREPLY=(); return ;;
        --memsuspend) COMPREPLY=(); return ;;
        --load) COMPREPLY=(); return ;;
        --halt|--halt-on-error) COMPREPLY=($(compgen -W "now soon now,fail=1 soon,fail=1 now,success=1" -- "$cur")); return ;;
        --delay) COMPREPLY=(); return ;;
        --slurm-cpus) COMPREPLY=(); return ;;
        --slurm-rate) COMPREPLY=(); return ;;
        -S|--hosts|--sshlogin) COMPREPLY=(); return ;;
        --hosts-file|--sshloginfile|--slf) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --ssh) COMPREPLY=($(compgen -c -- "$cur")); return ;;
        --env) COMPREPLY=(); return ;;
        --shard) COMPREPLY=($(compgen -W "auto 1/2 2/2" -- "$cur")); return ;;
        --shard-timings) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --rerun-failed) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --cache) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --cache-env) COMPREPLY=(); return ;;
        --cache-input) COMPREPLY=(); return ;;
        --cache-max) COMPREPLY=(); return ;;
        --tagstring|--tag-string) COMPREPLY=(); return ;;
        --names) COMPREPLY=(); return ;;
        --color|--colour) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return ;;
        --ci) COMPREPLY=($(compgen -W "auto github gitlab none" -- "$cur")); return ;;
        --joblog|--jl) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --json) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --junit) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --results|--res) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --timeline) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    # After --each TEMPLATE every word is an argument, usually a file.
    local i
    for ((i = 1; i < COMP_CWORD - 1; i++)); do
        [[ ${COMP_WORDS[i]} == --each ]] && { COMPREPLY=($(compgen -f -- "$cur")); return; }
    done
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "-a --arg-file --each --link --xapply -0 --null --plus --header --pipe --spreadstdin --pipe-part --pipepart --block --block-size --recend --recstart --regexp --shuf -I --replace -d --delimiter -E --eof -n -N --max-args --max-replace-args --xargs -m --multiple -X --multiple-context --colsep --trim -j -P --jobs --max-procs --shell --fast --nice -C --workdir --wd --timeout --grace --retries --memfree --memsuspend --load --fail-fast --halt --halt-on-error --delay -r --no-run-if-empty --gnu --will-cite --no-notice --citation --bibtex --dry-run --dryrun --slurm --slurm-slots --slurm-cpus --slurm-rate -S --hosts --sshlogin --hosts-file --sshloginfile --slf --ssh --env --shard --shard-timings --resume --resume-failed --rerun-failed --cache --cache-env --cache-input --cache-failures --cache-max --explain -k --keep-order -q --quiet -v --verbose --tag --tagstring --tag-string --live --line-buffer --linebuffer --line-buffered --lb -u --ungroup --files --output-as-files --outputasfiles --names --quiet-success --color --colour --progress --bar --eta --no-progress --ci --joblog --jl --json --junit --results --res --timeline -h --help --version" -- "$cur"))
    else
        COMPREPLY=($(compgen -c -- "$cur"))
    fi
}
complete -o bashdefault -o default -F _futurerun futurerun
