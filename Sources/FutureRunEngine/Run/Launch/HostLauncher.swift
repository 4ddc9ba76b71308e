import FutureProcess
import FutureRunModel

/// Attempts on several machines (`-S`): each machine a lane of the pool, its width its
/// connections' sessions; an attempt on another machine runs through ssh. An ssh that exits 255
/// may be the job's own status or a lost machine: the machine's check tells, and the attempt of a
/// lost one runs again elsewhere.
package final class HostLauncher: Launcher {
    private let fleet: HostFleet
    private let notices: Notices

    /// - Parameters:
    ///   - controlDirectory: a private directory for the connections' control sockets.
    ///   - engine: the engine the ssh commands run on.
    package init(
        _ settings: HostFleet.Settings, controlDirectory: String, engine: ProcessEngine = .shared, notices: Notices
    ) {
        fleet = HostFleet(settings, controlDirectory: controlDirectory, engine: engine) { notice in notices.post(notice) }
        self.notices = notices
    }

    package var governor: WidthGovernor { fleet.governor }

    package var handsOverInline: Bool { true }

    package func open() { fleet.open() }

    package func close() { fleet.close() }

    /// A job that no machine can take now may need another connection.
    package func queued() { fleet.jobsWaiting() }

    package var unavailable: String? { fleet.noneLeft }

    package func place(_ attempt: AttemptSpec, seat: CommandPool.Seat) -> (Command, Placement) {
        var placement = Placement(seat: seat, machine: fleet.name(of: seat.lane))
        guard fleet.isRemote(seat.lane) else { return (attempt.localCommand, placement) }
        let (command, session) = fleet.command(for: attempt, lane: seat.lane)
        placement.session = session
        return (command, placement)
    }

    package func judge(
        _ result: CommandResult, at placement: Placement, refusals: Int, stopping: Bool,
        verdict: @escaping @Sendable (AttemptVerdict) -> Void
    ) {
        let lane = placement.seat.lane
        fleet.jobEnded(lane: lane, session: placement.session)
        if let refused = spawnRefusal(result, refusals: refusals, stopping: stopping, notices: notices) {
            return verdict(refused)
        }
        guard fleet.isRemote(lane), result.status == .exited(255), !stopping else { return verdict(.stands) }
        fleet.lostConnection(lane: lane, session: placement.session) { alive in verdict(alive ? .stands : .lost) }
    }

}
