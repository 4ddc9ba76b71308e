import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// A private one-node Slurm cluster for one test: `munged` with a key in a scratch directory,
/// `slurmctld` and `slurmd` with a config of its own (state, spool, pid and log files there, ports
/// on loopback picked at random), the node claiming 8 CPUs (`SlurmdParameters=config_overrides`).
/// ``stop()`` ends all three by pid. Never the machine's own Slurm or munge.
final class TestSlurmCluster {
    let scratch = Scratch()
    var config: String { scratch.file("slurm.conf") }
    /// `SLURM_CONF=...` for a shell line.
    var environment: String { "SLURM_CONF=\(quoted(config))" }

    /// Starts the cluster; throws (with the reason recorded as a test issue) if it does not come up.
    init() throws {
        try #require(
            access("/usr/sbin/slurmctld", X_OK) == 0 && access("/usr/sbin/munged", X_OK) == 0,
            "Slurm and munge are needed (.ci/run installs slurm-wlm and munge)")
        try #require(getuid() == 0, "slurmd runs as root here (CI runs the tests as root)")
        let directory = scratch.path
        let host = String(decoding: Command(["hostname", "-s"]).run().value.stdout.bytes(), as: UTF8.self)
            .filter { !$0.isWhitespace }
        // A second try on other ports: a port another program took, or a start that hung under
        // load, is the machine's, not futurerun's.
        var failure = ""
        for _ in 1...2 {
            if let reason = start(host: host, directory: directory) {
                failure = reason
                stop()
                continue
            }
            return
        }
        Issue.record("the test cluster did not come up: \(failure)")
        throw ClusterDown()
    }

    /// Writes the config with ports picked now and starts the three daemons; why not, if not.
    private func start(host: String, directory: String) -> String? {
        let port = Int.random(in: 21000...59000)
        scratch.write(
            "slurm.conf",
            """
            ClusterName=frtest\(getpid())
            SlurmctldHost=\(host)(127.0.0.1)
            SlurmctldPort=\(port)
            SlurmdPort=\(port + 1)
            AuthType=auth/munge
            AuthInfo=socket=\(directory)/munge.sock
            CredType=cred/munge
            SlurmUser=root
            SlurmdUser=root
            StateSaveLocation=\(directory)/state
            SlurmdSpoolDir=\(directory)/spool
            SlurmctldPidFile=\(directory)/slurmctld.pid
            SlurmdPidFile=\(directory)/slurmd.pid
            SlurmctldLogFile=\(directory)/slurmctld.log
            SlurmdLogFile=\(directory)/slurmd.log
            ProctrackType=proctrack/linuxproc
            TaskPlugin=task/none
            SchedulerType=sched/builtin
            SelectType=select/cons_tres
            SelectTypeParameters=CR_CPU
            ReturnToService=2
            SlurmdParameters=config_overrides
            MpiDefault=none
            JobAcctGatherType=jobacct_gather/none
            AccountingStorageType=accounting_storage/none
            NodeName=\(host) NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
            PartitionName=debug Nodes=\(host) Default=YES MaxTime=INFINITE State=UP

            """)
        let start = """
            cd \(quoted(directory)) && rm -rf state spool munge.key ./*.pid && mkdir -p state spool && head -c 1024 /dev/urandom > munge.key && chmod 400 munge.key \
            && munged --force --key-file=$PWD/munge.key --socket=$PWD/munge.sock --pid-file=$PWD/munged.pid \
            --log-file=$PWD/munged.log --seed-file=$PWD/munge.seed \
            && slurmctld -f $PWD/slurm.conf && slurmd -f $PWD/slurm.conf \
            && for i in $(seq 100); do SLURM_CONF=$PWD/slurm.conf timeout 2 sinfo -h -o %t 2>/dev/null | grep -q idle && exit 0; sleep 0.1; done; \
            exit 1
            """
        var starting = Command.shell(start)
        starting.timeout = .seconds(40)  // only against a hang: a cluster is up in about a second
        let started = starting.run().value
        guard started.status != .exited(0) else { return nil }
        return "\(started.status): " + String(decoding: started.stderr.bytes(), as: UTF8.self)
    }

    struct ClusterDown: Error {}

    /// Runs `line` with this cluster's config; its stdout and status. `timeout` only guards
    /// against a hang (the tests check order and overlap from the jobs' stamps).
    func shell(_ line: String, timeout: Duration = .seconds(60)) -> (out: String, status: TerminationStatus) {
        var command = Command.shell("export \(environment); " + line)
        command.timeout = timeout
        let result = command.run().value
        return (String(decoding: result.stdout.bytes(), as: UTF8.self), result.status)
    }

    /// The steps running in the cluster, as `squeue -s` lists them (id and name).
    var steps: [String] {
        shell("squeue --steps --noheader --format='%i %j'").out.split(separator: "\n").map(String.init)
    }

    /// Ends slurmd, slurmctld and munged by their pids, and the step daemons (`slurmstepd`)
    /// this cluster started, found by their working directory, which is this cluster's: a step
    /// cut by a downed node can outlive its slurmd.
    func stop() {
        _ =
            Command.shell(
                """
                cd \(quoted(scratch.path)) || exit 0
                stepds() { for p in $(pgrep -x slurmstepd); do case "$(readlink /proc/$p/cwd)" in "$PWD"*) echo $p;; esac; done; }
                kill -9 $(stepds) 2>/dev/null
                for f in slurmd.pid slurmctld.pid munged.pid; do [ -s $f ] && kill $(cat $f) 2>/dev/null; done
                for i in $(seq 50); do alive=0; for f in slurmd.pid slurmctld.pid munged.pid; do
                  [ -s $f ] && kill -0 $(cat $f) 2>/dev/null && alive=1; done; [ $alive = 0 ] && break; sleep 0.1; done
                kill -9 $(stepds) 2>/dev/null
                """
            ).run().value
    }

    deinit { stop() }
}
