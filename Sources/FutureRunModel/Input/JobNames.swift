/// The names of the jobs read so far, checking each new header against them: a name is used once,
/// and a job waits only for jobs before it (so input order is always a valid order, input still
/// streams, and no cycle can form). Used under the job source's lock.
package struct JobNames {
    private var seen: Set<String> = []

    /// Why a job's header cannot be admitted.
    package enum Refusal: Equatable {
        /// Its name is taken: the name stays the earlier job's.
        case nameTaken(String)
        /// It waits for a job not (yet) seen: the job cannot run, but its name is known from now
        /// on, so the jobs that wait for it learn that it could not run.
        case unknownPrerequisite(String)

        package var message: String {
            switch self {
            case .nameTaken(let problem), .unknownPrerequisite(let problem): problem
            }
        }
    }

    /// Admits `header`'s job; the refusal, if its name is taken or it waits for a job not (yet) seen.
    package mutating func admit(_ header: JobHeader) -> Refusal? {
        guard !seen.contains(header.name) else {
            return .nameTaken("@\(header.name): another job before it has that name (names are unique)")
        }
        seen.insert(header.name)
        if let missing = header.prerequisites.first(where: { !seen.contains($0) || $0 == header.name }) {
            return .unknownPrerequisite(
                "@\(header.name) needs '\(missing)', which no earlier job is named (a job waits only for jobs before it)")
        }
        return nil
    }

    /// Checks a whole list known before the run: the first problem, told as exactly as the whole list
    /// allows (a name used twice, a name that comes only later, or one no job has).
    package static func check(_ headers: [JobHeader?]) -> String? {
        var positions: [String: Int] = [:]
        for (position, header) in headers.enumerated() {
            guard let header else { continue }
            if positions[header.name] != nil { return "@\(header.name) is the name of two jobs (names are unique)" }
            positions[header.name] = position
        }
        for (position, header) in headers.enumerated() {
            guard let header else { continue }
            for name in header.prerequisites {
                guard let at = positions[name] else { return "@\(header.name) needs '\(name)', and no job has that name" }
                if at == position { return "@\(header.name) waits for itself" }
                if at > position {
                    return "@\(header.name) needs '\(name)', which comes after it: a job waits only for jobs before it"
                }
            }
        }
        return nil
    }
}
