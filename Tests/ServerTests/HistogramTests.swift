import Testing

@testable import Server
@testable import Tools

@Suite struct HistogramTests {
    /// Each label set keeps its own cumulative buckets, sum and count, however many times it is
    /// observed (observations change the series in place).
    @Test func seriesCountCumulativelyPerLabelSet() {
        let histogram = Histogram(bounds: [1, 10])
        for value in [0.5, 1, 5, 50] { histogram.observe(value, labels: #"route="/a""#) }
        histogram.observe(20, labels: #"route="/b""#)

        #expect(
            histogram.render(name: "x") == [
                #"x_bucket{route="/a",le="1"} 2"#, #"x_bucket{route="/a",le="10"} 3"#, #"x_bucket{route="/a",le="+Inf"} 4"#,
                #"x_sum{route="/a"} 56.5"#, #"x_count{route="/a"} 4"#,
                #"x_bucket{route="/b",le="1"} 0"#, #"x_bucket{route="/b",le="10"} 0"#, #"x_bucket{route="/b",le="+Inf"} 1"#,
                #"x_sum{route="/b"} 20"#, #"x_count{route="/b"} 1"#,
            ])
    }
}
