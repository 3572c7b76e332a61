import Foundation

/// The whole machine's CPU time from `/proc/stat` (all cores, clock ticks), to tell how busy the
/// cores were over a load: CPU per request says what a request costs, this says how much of the
/// machine the load kept working (a load that waits on the disk or on wake-ups leaves cores idle,
/// and a busy host takes time away as steal).
struct MachineCPU {
    var idle: Double
    var steal: Double
    var total: Double

    /// The first (`cpu`) line of `/proc/stat`; nil where there is none.
    static func now() -> MachineCPU? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        // user nice system idle iowait irq softirq steal (guest times are inside user and nice).
        let ticks = line.split(separator: " ").dropFirst().prefix(8).compactMap { Double($0) }
        guard ticks.count == 8 else { return nil }
        return MachineCPU(idle: ticks[3] + ticks[4], steal: ticks[7], total: ticks.reduce(0, +))
    }

    /// The share of the machine between `self` and `later`, in percent: cores busy (neither idle
    /// nor waiting for I/O, steal excluded) and time the host took away (steal).
    func shares(until later: MachineCPU) -> (busy: Double, steal: Double) {
        let total = later.total - self.total
        guard total > 0 else { return (0, 0) }
        let idle = later.idle - self.idle
        let steal = later.steal - self.steal
        func percent(_ part: Double) -> Double { (part * 1000 / total).rounded() / 10 }
        return (percent(total - idle - steal), percent(steal))
    }
}
