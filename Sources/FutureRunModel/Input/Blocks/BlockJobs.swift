import FutureCore
import FutureProcess
import Glibc

/// The jobs of `--pipe` and `--pipe-part`: one command, run once per block of the input, the block
/// on the job's stdin, numbered (`{#}`) in input order. A block is read (or, for a file part, its
/// border found) only when the scheduler pulls its job, so at most the scheduler's window of blocks
/// is held at once.
///
/// Pulled from one thread (the scheduler's); ``knownTotal`` may be read from any thread.
package final class BlockJobs: JobOrigin {
    private enum Blocks {
        case stream(StreamBlocks)
        case fileParts(FileParts, path: [UInt8])
    }

    private let template: Template
    private let name: String
    private let state: Locked<(blocks: Blocks, produced: Int)>
    private let total = Locked<Int?>(nil)

    /// - Parameter input: the descriptor the blocks are read from (stdin, or the file given).
    package init(command: [UInt8], file: String?, input: Int32, options: Options) throws(UsageError) {
        template = try Template(command, plus: options.plus, perl: options.perlExpressions)
        let option = options.pipe == .fileParts ? "--pipe-part" : "--pipe"
        if template.parts.contains(where: { if case .argument = $0 { true } else { false } }) {
            throw .invalidValue(
                option: option, value: String(decoding: command, as: UTF8.self),
                expected: "a command without {} or {N}: each job reads its block on stdin ({#} is its number)")
        }
        name = String(decoding: command, as: UTF8.self)
        let boundary = RecordBoundary(end: options.recordEnd, start: options.recordStart, isPattern: options.recordPatterns)
        let size = options.blockSize ?? 1 << 20
        let blocks: Blocks
        switch options.pipe {
        case .fileParts:
            do {
                blocks = .fileParts(
                    try FileParts(descriptor: input, boundary: boundary, size: size, cutsForward: options.grammar == .gnu),
                    path: ArgumentText.bytes(file ?? "-"))
            } catch .unreadable(let error) {
                throw .unreadableFile(path: file ?? "-", reason: String(cString: strerror(error)))
            } catch {
                throw .invalidValue(
                    option: "--pipe-part", value: file ?? "-", expected: "a file it can seek in (use --pipe for a stream)")
            }
        default:
            blocks = .stream(
                StreamBlocks(
                    descriptor: input, boundary: boundary, size: size,
                    records: options.maxArgumentsGiven ? options.maxArguments : nil,
                    headerLines: options.headerLines ?? (options.header ? 1 : 0)))
        }
        state = Locked((blocks, 0))
    }

    package var knownTotal: Int? { total.withLock { $0 } }

    package var inputNotice: String? {
        state.withLock { state in
            if case .fileParts(let parts, _) = state.blocks, parts.shrank {
                return "the --pipe-part file shrank while it was read: the last jobs got what was left of it"
            }
            return nil
        }
    }

    package var readError: Int32? {
        state.withLock { state in
            switch state.blocks {
            case .stream(let blocks): blocks.readError
            case .fileParts(let parts, _): parts.readError
            }
        }
    }

    /// The next block's job, blocking while its block is read; `nil` at the end of input.
    package func next() -> Job? {
        state.withLock { state in
            let input: (any CommandInput)?
            switch state.blocks {
            case .stream(var blocks):
                input = blocks.next().map(BytesInput.init)
                state.blocks = .stream(blocks)
            case .fileParts(var parts, let path):
                input = parts.next().map { FileRangeInput(path: path, offset: $0.offset, length: $0.length) }
                state.blocks = .fileParts(parts, path: path)
            }
            guard let input else {
                let produced = state.produced
                total.withLock { $0 = produced }
                return nil
            }
            state.produced += 1
            return Job(number: state.produced, name: name, body: .template(template, arguments: []), input: input)
        }
    }
}
