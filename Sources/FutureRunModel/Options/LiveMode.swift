/// How `--live`, `--line-buffer` and `-u` pass output on as it comes (``LivePrinter``).
package enum LiveMode: Sendable, Equatable {
    /// Whole lines, each with its job's `[label]` (`--live`).
    case labeledLines
    /// Whole lines as they are (`--line-buffer`, GNU parallel's).
    case lines
    /// Bytes as they are read, half lines too, so jobs' lines may mix (`-u`, GNU parallel's).
    case asRead
}
