/// The text of `futurerun --help`: every form and option with an example. Keep in step with
/// docs/futurerun.1 and the README.
public enum Help {
    public static let version = "futurerun 0.1.0"

    public static let text = """
    futurerun — run shell jobs in parallel; print their output in input order, with timing

    USAGE
      futurerun [OPTIONS] COMMAND [::: COMMAND ...]     each segment between ::: is one job
      futurerun [OPTIONS] < jobs.txt                     one job per line of stdin
      futurerun [OPTIONS] -a FILE                        one job per line of FILE ("-" is stdin)
      futurerun [OPTIONS] --each TEMPLATE ARG ...        TEMPLATE once per argument
      futurerun [OPTIONS] --each TEMPLATE ::: A B ::: 1 2   every combination of the lists
      find . -name '*.log' | futurerun --each 'gzip {}'     arguments from stdin lines

    Jobs run with /bin/sh -c. In job files, blank lines and lines starting with # are skipped.
    Each job's stdout goes to stdout and its stderr to stderr, whole and in input order; a status
    line per job and a summary go to stderr.

    REPLACEMENT STRINGS (--each; arguments are shell-quoted when substituted)
      {}  argument          {.}  without extension   {/}  base name     {//}  directory
      {/.} base name without extension    {#}  job number    {%}  job slot
      {1} {2} ...  argument from the 1st, 2nd ... list (also {2.} {2/} {2//} {2/.})
      A template with none of these gets the argument appended.

    OPTIONS
      -j, --jobs N         run N jobs at once: -j4; 0 = no limit; 50% of the CPUs: -j50%
                           (default: the CPUs this process may use)
      -a, --arg-file FILE  read jobs (or --each arguments) from FILE: -a jobs.txt
          --each TEMPLATE  run TEMPLATE per argument: --each 'gzip -k {}' *.log
          --link           pair the ::: lists element by element instead of combining them
      -0, --null           input records end with NUL, not newline: find -print0 | futurerun -0 --each ...
          --shell PATH     run jobs with PATH -c instead of /bin/sh: --shell /bin/bash
      -C, --workdir DIR    run jobs in DIR: -C build
          --timeout TIME   stop a job after TIME (TERM, then KILL): --timeout 30s
          --grace TIME     between TERM and KILL (default 5s): --grace 2s
          --retries N      rerun a failed job up to N more times: --retries 2
          --fail-fast      at the first failure, start nothing new and stop running jobs
          --halt WHEN      GNU parallel's --halt: now|soon[,fail=N|fail=N%|success=N]
                           --halt now,success=1 races the jobs: the first success wins
          --delay TIME     wait TIME between job starts: --delay 200ms
          --dry-run        print the jobs' command lines, run nothing
      -q, --quiet          no status lines, no summary
      -v, --verbose        print each job's command line before its output
          --tag            prefix each output line with the job's label and a TAB
          --live           print lines as soon as any job writes them, prefixed [label]
                           (alias --line-buffer)
          --names A,B,...  labels for the jobs: --names lint,test,docs
          --quiet-success  show only failed jobs' output; replay their last lines at the end
          --color WHEN     auto (default), always or never; NO_COLOR is honoured
          --progress       a live progress line on stderr (default: when stderr is a terminal)
          --no-progress    no progress line
          --ci KIND        log groups for auto (default), github, gitlab or none
          --joblog FILE    GNU parallel's joblog: --joblog jobs.log (+FILE appends)
          --json FILE      one JSON object per job: --json jobs.jsonl
          --junit FILE     JUnit XML, one testcase per job: --junit report.xml
          --results DIR    a folder per job with stdout, stderr, meta.json: --results out
      -h, --help           this text
          --version        the version

    EXIT STATUS
      0 all jobs succeeded · 1-100 that many failed · 101 more than 100 failed
      129/130/143 stopped by SIGHUP/SIGINT/SIGTERM · 141 the reader of stdout went away
      255 bad usage or an error of futurerun itself

    EXAMPLES
      futurerun 'make lint' ::: 'make test' ::: 'make docs'
      futurerun -j4 --timeout 10m < jobs.txt
      futurerun --each 'convert {} {.}.png' *.svg
      futurerun --each 'ssh {1} uptime' ::: web1 web2 db1

    """
}
