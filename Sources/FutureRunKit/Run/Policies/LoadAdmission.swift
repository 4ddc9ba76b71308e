/// `--load N`, as GNU parallel has it: a job starts only while fewer than N threads of other
/// processes are running or waiting for the disk right now (``RunnableThreads``; not the load
/// average, which trails by a minute), and at most one at a time, so that no burst of starts
/// pushes the load past N.
struct LoadAdmission: Equatable {
    /// N.
    let limit: Int

    /// How many more may start when `busy` threads of other processes run or wait.
    func more(busy: Int) -> Int { busy < limit ? 1 : 0 }
}
