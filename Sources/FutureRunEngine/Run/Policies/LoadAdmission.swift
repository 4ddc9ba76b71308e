import FutureRunModel

/// `--load N`, as GNU parallel has it: a job starts only while fewer than N threads of other
/// processes are running or waiting for the disk right now (``RunnableThreads``; not the load
/// average, which trails by a minute), and at most one at a time, so that no burst of starts
/// pushes the load past N.
package struct LoadAdmission: Equatable {
    /// N.
    package let limit: Int

    /// How many more may start when `busy` threads of other processes run or wait.
    package func more(busy: Int) -> Int { busy < limit ? 1 : 0 }

    package init(limit: Int) {
        self.limit = limit
    }
}
