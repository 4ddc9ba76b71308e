import FutureRunKit
import Glibc

// The table of contents: signals first (while this is the only thread), then parse → plan → run →
// report, all inside FutureRun.main, and its exit status.
FutureRun.prepare()
let arguments = (1..<Int(CommandLine.argc)).map { index in
    Array(UnsafeBufferPointer(start: CommandLine.unsafeArgv[index], count: strlen(CommandLine.unsafeArgv[index]!)))
        .map { UInt8(bitPattern: $0) }
}
exit(FutureRun.main(arguments, programName: String(cString: CommandLine.unsafeArgv[0]!)))
