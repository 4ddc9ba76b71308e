import Dispatch
import FutureCore
import FutureProcess

/// GNU parallel's `{= perl expression =}` (GNU's grammar): one `perl` for the whole run, started
/// at the first template that holds an expression, that compiles each expression once and then
/// evaluates it for each argument, as GNU does: `$_` is the argument and what it holds after the
/// expression is the value; `$job->seq()` the job's number, `@arg` the job's arguments (`$arg[1]`
/// the first), `total_jobs()` the number of jobs (the input is then read whole first, as GNU
/// does); `Q()` quotes for the shell, `uq()` leaves the value unquoted (the template's explicit
/// choice to write it as code), `skip()` skips the job. Variables live on from job to job.
///
/// Calls block the calling thread (the job source's, or a slot's at start) until perl answers;
/// one at a time.
package final class PerlCoprocess: Sendable, Equatable {
    package enum Value: Equatable, Sendable {
        /// The value, to be quoted as an argument is, or `uq()`: written as it is.
        case value([UInt8], quoted: Bool)
        case skip
        case failed(String)
    }

    private let run: CommandRun
    private let input: InputPipe
    /// What perl has answered and not been taken yet, and whether it has ended.
    private let replies = Locked<(bytes: [UInt8], ended: Bool)>(([], false))
    private let arrived = DispatchSemaphore(value: 0)
    /// One request and its answer at a time.
    private let turn = Locked<Void>(())
    /// The number of jobs, for `total_jobs()`, once known (`-1`: not known).
    private let total = Locked(-1)
    /// `skip()` was called, or an expression failed, since the last ``takeOutcome()``.
    private let outcome = Locked<Value?>(nil)

    /// The run's perl, started on first use; why not as a usage error.
    package static func shared() throws(UsageError) -> PerlCoprocess {
        let result = started.withLock { started -> Result<PerlCoprocess, UsageError> in
            if let started { return .success(started) }
            guard case .success(let path) = Command.locateExecutable("perl") else {
                return .failure(
                    .needsOption(
                        option: "{= perl expression =}", needs: "perl, which is not installed here",
                        example: "install perl, or compute the value in the command's shell"))
            }
            guard let coprocess = PerlCoprocess(perl: path) else {
                return .failure(.invalidValue(option: "{= perl expression =}", value: "perl", expected: "a perl that starts"))
            }
            started = coprocess
            return .success(coprocess)
        }
        return try result.get()
    }

    private static let started = Locked<PerlCoprocess?>(nil)

    private init?(perl: String) {
        guard let input = InputPipe() else { return nil }
        var command = Command([perl, "-e", Self.program])
        command.input = input
        self.input = input
        let run = ProcessEngine.shared.start(command)
        self.run = run
        run.stdout.discardConsumed()
        // The run's one perl lives as long as the process: the waker may hold it.
        run.stdout.setWaker { [self] in received() }
    }

    /// What perl wrote, kept for ``ask(header:fields:)``. On the engine's thread.
    private func received() {
        let bytes = run.stdout.consume()
        let ended = run.stdout.isFinished
        replies.withLock {
            $0.bytes += bytes
            $0.ended = $0.ended || ended
        }
        arrived.signal()
    }

    package static func == (a: PerlCoprocess, b: PerlCoprocess) -> Bool { a === b }

    /// Compiles `expression`; why it does not compile, if it does not.
    func compile(_ expression: String) -> String? {
        if case .failed(let why) = ask(header: "c 0 0 0 -1", fields: [Array(expression.utf8)]) { return why }
        return nil
    }

    /// `expression` for `arguments[index]` in job `jobNumber`.
    func evaluate(_ expression: String, index: Int, of arguments: [[UInt8]], jobNumber: Int) -> Value {
        let value = ask(
            header: "e \(jobNumber) \(arguments.count) \(index) \(total.withLock { $0 })",
            fields: [Array(expression.utf8)] + arguments)
        if case .value = value {} else { outcome.withLock { $0 = $0 ?? value } }
        return value
    }

    /// What `total_jobs()` says from now on.
    func setTotal(_ count: Int?) { total.withLock { $0 = count ?? -1 } }

    /// `.skip` if an expression called `skip()`, `.failed` if one died, since the last call: what
    /// becomes of the job being made (skipped; failed with perl's words).
    func takeOutcome() -> Value? {
        outcome.withLock { state in
            defer { state = nil }
            return state
        }
    }

    /// Sends a request (a header line, then each field as its length on a line and its bytes) and
    /// waits for the answer (a letter, its length on the line, and its bytes).
    private func ask(header: String, fields: [[UInt8]]) -> Value {
        turn.withLock { _ in
            var request = Array((header + "\n").utf8)
            for field in fields { request += Array("\(field.count)\n".utf8) + field }
            guard input.write(request) else { return .failed("perl has ended") }
            while true {
                let (reply, ended) = replies.withLock { state -> (Value?, Bool) in
                    guard let newline = state.bytes.firstIndex(of: 0x0A), newline >= 2,
                        let length = Int(String(decoding: state.bytes[2..<newline], as: UTF8.self)),
                        state.bytes.count >= newline + 1 + length
                    else { return (nil, state.ended) }
                    let kind = state.bytes[0]
                    let body = Array(state.bytes[(newline + 1)..<(newline + 1 + length)])
                    state.bytes.removeFirst(newline + 1 + length)
                    switch kind {
                    case UInt8(ascii: "v"): return (.value(body, quoted: true), false)
                    case UInt8(ascii: "u"): return (.value(body, quoted: false), false)
                    case UInt8(ascii: "s"): return (.skip, false)
                    default: return (.failed(String(decoding: body, as: UTF8.self)), false)
                    }
                }
                if let reply { return reply }
                if ended { return .failed("perl has ended") }
                arrived.wait()
            }
        }
    }

    /// The perl side: reads requests from stdin, answers on stdout.
    private static let program = #"""
        use strict; no strict "vars"; no warnings;
        binmode STDIN; binmode STDOUT; $| = 1;
        package Job { sub seq { $main::seq } sub slot { 1 } }
        our ($seq, $total, $skip, $unquote, @arg, %sub);
        sub total_jobs { $total }
        our $job = bless {}, "Job";
        sub Q { my $s = shift; return "''" if $s eq ""; return $s if $s =~ m{^[-a-zA-Z0-9_/.+=:,%@]+$};
          $s =~ s/'/'"'"'/g; "'$s'" }
        sub uq { $unquote = 1 } sub skip { $skip = 1 }
        sub field { my $n = <STDIN>; exit 0 unless defined $n; my $b = ""; my $got = 0;
          while ($got < $n) { my $r = read(STDIN, $b, $n - $got, $got); exit 0 unless $r; $got += $r } $b }
        sub reply { my ($k, $b) = @_; $b = "" unless defined $b; print $k, " ", length($b), "\n", $b }
        while (defined(my $h = <STDIN>)) {
          my ($op, $s, $n, $i, $t) = split / /, $h; $total = $t + 0; my $e = field(); my @a = map { field() } 1 .. $n;
          my $code = $sub{$e} //= eval "package main; no strict; sub { $e\n;}";
          unless ($code) { my $w = $@; $w =~ s/ at \(eval \d+\) line \d+.*//s; reply("e", $w); next }
          if ($op eq "c") { reply("v", ""); next }
          local $_ = $a[$i]; $seq = $s; @arg = (undef, @a); $skip = 0; $unquote = 0;
          unless (eval { $code->(); 1 }) { my $w = $@; $w =~ s/ at \(eval \d+\) line \d+.*//s; reply("e", $w); next }
          reply($skip ? "s" : $unquote ? "u" : "v", $_);
        }
        """#
}
