import FutureProcess
import Glibc
import _CFutureShims

/// A remote job's standard input: a pipe that holds these bytes (the job's payload) and then
/// stays open, without an end, until the job's `ssh` has exited. The remote side reads the bytes,
/// then waits; it reads the end of input only if futurerun dies first (its end of the pipe closes
/// with it, even on SIGKILL), which is how a remote job learns that its caller is gone
/// (``RemoteInvocation``). At most about 1 MiB of bytes.
struct HeldOpenInput: CommandInput {
    let bytes: [UInt8]

    func open() throws(InputError) -> OpenedInput {
        var fds: [Int32] = [-1, -1]
        guard bytes.withUnsafeBufferPointer({ fc_pipe_for_child_input(&fds, $0.baseAddress, $0.count) }) == 0 else {
            throw InputError(errno: errno)
        }
        return OpenedInput(child: fds[0], held: fds[1])
    }
}
