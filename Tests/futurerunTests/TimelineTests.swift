import FutureCore
import FutureProcess
import Glibc
import TestSupport
import Testing

/// `--timeline FILE.svg` on the binary: read back as XML (python3's parser), and drawn in a real
/// headless browser.
@Suite struct TimelinePicture {
    /// Each bar of the SVG: job, attempt, slot row (its y), x and width, from an XML parser.
    private func bars(_ path: String) throws -> [(job: Int, attempt: Int, y: Double, x: Double, width: Double)] {
        let script = """
            import sys, xml.etree.ElementTree as E
            ns = '{http://www.w3.org/2000/svg}'
            for g in E.parse(sys.argv[1]).getroot().iter(ns + 'g'):
                r = g.find(ns + 'rect')
                print(g.get('data-job'), g.get('data-attempt'), r.get('y'), r.get('x'), r.get('width'))
            """
        let result = Command(["/usr/bin/python3", "-c", script, path]).run().value
        try #require(result.status == .exited(0), "not XML: \(String(decoding: result.stderr.bytes(), as: UTF8.self))")
        return String(decoding: result.stdout.bytes(), as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: " ")
            guard f.count == 5, let job = Int(f[0]), let attempt = Int(f[1]), let y = Double(f[2]), let x = Double(f[3]),
                let width = Double(f[4])
            else { return nil }
            return (job, attempt, y, x, width)
        }
    }

    @Test func oneBarPerAttemptInStartOrderWithWidthsProportionalToTheTimes() throws {
        try #require(access("/usr/bin/python3", X_OK) == 0, "no python3 to parse the XML (.ci/run installs it)")
        let scratch = Scratch()
        let counter = quoted(scratch.file("count"))
        let run = futurerun([
            "-q", "-j2", "--retries", "2", "--timeline", scratch.file("t.svg"), "--json", scratch.file("j.jsonl"),
            "sleep 0.4", ":::", "sleep 0.1", ":::", "sleep 0.2", ":::",
            "echo x >> \(counter); sleep 0.1; [ $(wc -l < \(counter)) -ge 2 ]",
        ])
        #expect(run.status == 0, "\(run.err)")
        let drawn = try bars(scratch.file("t.svg"))
        #expect(drawn.count == 5, "four jobs, one of them twice: \(drawn)")
        #expect(drawn.filter { $0.job == 4 }.map(\.attempt).sorted() == [1, 2])
        // Per row, bars do not overlap and follow one another in start order.
        for row in Set(drawn.map(\.y)) {
            let inRow = drawn.filter { $0.y == row }.sorted { $0.x < $1.x }
            for (a, b) in zip(inRow, inRow.dropFirst()) { #expect(a.x + a.width <= b.x + 1.5, "overlap in a slot: \(inRow)") }
        }
        // Width over recorded wall time is the same for every final attempt.
        let walls = (scratch.read("j.jsonl") ?? "").split(separator: "\n").compactMap { line -> (Int, Double)? in
            guard let n = line.firstRange(of: "\"number\":"), let w = line.firstRange(of: "\"wall\":") else { return nil }
            return (
                Int(line[n.upperBound...].prefix { $0.isNumber }) ?? 0,
                Double(line[w.upperBound...].prefix { $0.isNumber || $0 == "." }) ?? 0
            )
        }
        let scales = walls.compactMap { number, wall in
            drawn.filter { $0.job == number }.max { $0.attempt < $1.attempt }.map { $0.width / wall }
        }
        #expect(scales.count == 4)
        #expect((scales.max() ?? 0) / (scales.min() ?? 1) < 1.05, "\(scales)")
    }

    @Test func eachAttemptHasTheColourOfItsOwnEndAndTooltipsSayItOnce() throws {
        let scratch = Scratch()
        let counter = quoted(scratch.file("count"))
        // The first attempt times out, the second passes: an orange bar, then a green one.
        let run = futurerun(
            [
                "-q", "--retries", "2", "--timeout", "300ms", "--timeline", scratch.file("t.svg"),
                "echo x >> \(counter); [ $(wc -l < \(counter)) -ge 2 ] || sleep 5", ":::", "true",
            ])
        #expect(run.status == 0, "\(run.err)")
        let svg = try #require(scratch.read("t.svg"))
        let firstTry = try #require(svg.firstRange(of: "data-job=\"1\" data-attempt=\"1\">"))
        #expect(svg[firstTry.upperBound...].prefix(200).contains("fill=\"#f77f00\""), "the timed-out try is orange")
        #expect(svg.contains("&#10;timed out&#10;") && svg.contains("&#10;ok (flaky: it passed after 1 failed)&#10;"))
        #expect(!svg.contains("ok: ok") && !svg.contains("timed out: timeout"))
        // A job far shorter than a pixel of the axis still gets a bar one can point at.
        let widths = svg.matches(of: /width="([0-9.]+)" height="20"/).compactMap { Double($0.output.1) }
        #expect(widths.count == 3 && widths.allSatisfy { $0 >= 3 }, "\(widths)")
    }

    @Test func hostileLabelsAndCommandsAreTextNeverMarkup() throws {
        let scratch = Scratch()
        let hostile = "<script>alert(1)</script>\u{01}&\"'"
        let run = futurerun(["-q", "--timeline", scratch.file("t.svg"), "--names", hostile, "echo '</title><script>x</script>'"])
        #expect(run.status == 0)
        let svg = try #require(scratch.read("t.svg"))
        #expect(!svg.contains("<script"), "markup from a label or command")
        #expect(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;'"), "\(svg)")
        #expect(!svg.contains("\u{01}"))
    }

    @Test func theTimelineIsWrittenWhenTheRunIsInterrupted() throws {
        let scratch = Scratch()
        let run = futurerun(
            ["-q", "--timeline", scratch.file("t.svg"), "true", ":::", "sleep 30"], shellPrefix: "( sleep 0.6; kill -INT $$ ) & ")
        #expect(run.status == 130)
        let svg = try #require(scratch.read("t.svg"))
        #expect(svg.hasSuffix("</svg>\n"))
        #expect(svg.contains("data-job=\"1\"") && svg.contains("data-job=\"2\""), "the stopped job is drawn too")
    }

    @Test func aHeadlessBrowserDrawsIt() throws {
        let candidates = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        let path = try #require(candidates.first { access($0, X_OK) == 0 }, "no chromium to render the SVG (.ci/run installs it)")
        try #require(access("/usr/bin/python3", X_OK) == 0, "no python3 to read the screenshot (.ci/run installs it)")
        let scratch = Scratch()
        _ = futurerun([
            "-q", "-j2", "--timeline", scratch.file("t.svg"), "@a sleep 0.2", ":::", "@b after=a sleep 0.1", ":::",
            "sleep 0.2; exit 1",
        ])
        var shot = Command([
            path, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1100,240",
            "--screenshot=" + scratch.file("t.png"), scratch.file("t.svg"),
        ])
        shot.environment = [("HOME", scratch.path)]
        shot.timeout = .seconds(60)
        _ = shot.run().value
        // The screenshot's pixels, counted by color: the bars must be drawn in their outcomes'
        // colors, each far larger than its 12 x 12 legend square, and the critical path outlined.
        let script = """
            import sys, zlib, struct
            data = open(sys.argv[1], 'rb').read()
            pos, idat = 8, b''
            while pos < len(data):
                n, kind = struct.unpack('>I4s', data[pos:pos + 8])
                if kind == b'IHDR': width, height, depth, color = struct.unpack('>IIBB', data[pos + 8:pos + 18])
                if kind == b'IDAT': idat += data[pos + 8:pos + 8 + n]
                pos += 12 + n
            assert depth == 8 and color in (2, 6), (depth, color)
            bpp = 3 if color == 2 else 4
            raw, stride, prior, counts = zlib.decompress(idat), width * bpp, bytearray(width * bpp), {}
            for row in range(height):
                start = row * (stride + 1)
                kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
                for i in range(stride):
                    a = line[i - bpp] if i >= bpp else 0
                    b, c = prior[i], prior[i - bpp] if i >= bpp else 0
                    if kind == 1: line[i] = (line[i] + a) & 255
                    elif kind == 2: line[i] = (line[i] + b) & 255
                    elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
                    elif kind == 4:
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                for x in range(width):
                    pixel = '%02x%02x%02x' % tuple(line[x * bpp:x * bpp + 3])
                    counts[pixel] = counts.get(pixel, 0) + 1
                prior = line
            print(counts.get('2a9d4a', 0), counts.get('d62828', 0), counts.get('1d3557', 0))
            """
        let result = Command(["/usr/bin/python3", "-c", script, scratch.file("t.png")]).run().value
        let counts = String(decoding: result.stdout.bytes(), as: UTF8.self).split(separator: " ").compactMap {
            Int($0.filter(\.isNumber))
        }
        try #require(
            counts.count == 3, "the screenshot could not be read: \(String(decoding: result.stderr.bytes(), as: UTF8.self))")
        #expect(counts[0] > 4 * 144, "ok bars in green: \(counts[0]) pixels")
        #expect(counts[1] > 4 * 144, "the failed bar in red: \(counts[1]) pixels")
        #expect(counts[2] > 100, "the critical path outlined: \(counts[2]) pixels")
    }
}
