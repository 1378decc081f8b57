/// A weather icon (`01d` … `50n`, OpenWeather's codes that every source's blocks carry) drawn as inline SVG: the
/// timeline page shows these where no icon image is cached, since an emoji needs a font with emoji, which many
/// machines lack (Chromium then draws an empty box). Plain shapes, no text, no request: the page stays one file.
package enum WeatherIconSVG {
    /// The icon as an `<svg>` element `size` pixels square, labelled for screen readers with `label`.
    package static func svg(_ icon: String, size: Int = 48, label: String) -> String {
        let night = icon.hasSuffix("n")
        let body: String
        switch icon.prefix(2) {
        case "01": body = night ? Self.moon(x: 24, y: 24, r: 11) : Self.sun(x: 24, y: 24, r: 9)
        case "02": body = (night ? Self.moon(x: 17, y: 16, r: 8) : Self.sun(x: 17, y: 16, r: 7)) + Self.cloud(dy: 4)
        case "03": body = Self.cloud(dy: 0)
        case "04": body = Self.cloud(dy: -5, fill: "rgb(213,218,225)") + Self.cloud(dy: 3, fill: "rgb(154,164,177)")
        case "09": body = Self.cloud(dy: -4) + Self.rain(slant: 3)
        case "10":
            body =
                (night ? Self.moon(x: 16, y: 13, r: 7) : Self.sun(x: 16, y: 13, r: 6)) + Self.cloud(dy: -2)
                + Self.rain(slant: 3)
        case "11":
            body =
                Self.cloud(dy: -4, fill: "rgb(125,135,148)")
                + #"<path d="M25 30l-6 9h5l-3 8 9-11h-5l3-6z" fill="rgb(245,180,0)"/>"#
        case "13":
            body =
                Self.cloud(dy: -4)
                + [16, 24, 32].map { x in
                    #"<circle cx="\#(x)" cy="\#(x == 24 ? 42 : 38)" r="2.2" fill="rgb(127,179,230)"/>"#
                }
                .joined()
        case "50":
            body = [14, 22, 30, 38].map { y in
                #"<line x1="\#(y == 22 || y == 38 ? 10 : 6)" y1="\#(y)" x2="\#(y == 14 || y == 30 ? 38 : 42)" y2="\#(y)" "#
                    + #"stroke="rgb(154,164,177)" stroke-width="3" stroke-linecap="round"/>"#
            }.joined()
        default:
            body = #"<circle cx="24" cy="24" r="10" fill="none" stroke="rgb(154,164,177)" stroke-width="3"/>"#
        }
        return #"<svg class="icon" viewBox="0 0 48 48" width="\#(size)" height="\#(size)" role="img" "#
            + #"aria-label="\#(TimelinePage.escaped(label))"><title>\#(TimelinePage.escaped(label))</title>"#
            + body + "</svg>"
    }

    private static func sun(x: Int, y: Int, r: Int) -> String {
        var rays = ""
        for step in 0..<8 {
            // Rays at 45° steps: unit vectors as whole-number eighths, no trigonometry.
            let (dx, dy) = [(10, 0), (7, 7), (0, 10), (-7, 7), (-10, 0), (-7, -7), (0, -10), (7, -7)][step]
            let (inner, outer) = (r + 3, r + 7)
            rays +=
                #"<line x1="\#(x + dx * inner / 10)" y1="\#(y + dy * inner / 10)" "#
                + #"x2="\#(x + dx * outer / 10)" y2="\#(y + dy * outer / 10)" "#
                + #"stroke="rgb(245,180,0)" stroke-width="2.5" stroke-linecap="round"/>"#
        }
        return rays + #"<circle cx="\#(x)" cy="\#(y)" r="\#(r)" fill="rgb(245,180,0)"/>"#
    }

    private static func moon(x: Int, y: Int, r: Int) -> String {
        #"<path d="M\#(x + r / 3) \#(y - r)a\#(r) \#(r) 0 1 0 \#(r * 2 / 3) \#(r * 3 / 2)"#
            + #"a\#(r * 4 / 5) \#(r * 4 / 5) 0 0 1 -\#(r * 2 / 3) -\#(r * 3 / 2)z" fill="rgb(201,184,239)"/>"#
    }

    private static func cloud(dy: Int, fill: String = "rgb(183,191,202)") -> String {
        #"<path d="M13 \#(36 + dy)h23a7 7 0 0 0 0-14a10 10 0 0 0-19-3a8 8 0 0 0-4 17z" fill="\#(fill)"/>"#
    }

    private static func rain(slant: Int) -> String {
        [16, 24, 32].map { x in
            #"<line x1="\#(x)" y1="37" x2="\#(x - slant)" y2="45" stroke="rgb(74,144,217)" stroke-width="2.5" "#
                + #"stroke-linecap="round"/>"#
        }.joined()
    }
}
