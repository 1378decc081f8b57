/// Which plural form a count takes in a language: a catalog's `Plural-Forms` header, `nplurals=N; plural=EXPR;`,
/// where EXPR is C over `n` as gettext's grammar has it (`!`, `* / %`, `+ -`, `< > <= >=`, `== !=`, `&&`, `||`,
/// `?:`, parentheses and decimal numbers).
///
/// Read without recursion (shunting-yard into postfix, checked once for the operands each operator takes), so no
/// header can exhaust the stack; a header longer than 1,024 bytes is refused. A form beyond `nplurals` is form 0,
/// as gettext takes it, and division by zero is 0.
package struct PluralRule: Sendable, Equatable {
    package enum Failure: Error, Equatable, CustomStringConvertible {
        case tooLong
        case noCount
        case unexpected(String)

        package var description: String {
            switch self {
            case .tooLong: return "it is longer than 1,024 bytes"
            case .noCount: return "it has no nplurals=N between 1 and 16"
            case .unexpected(let what): return "its plural= has \(what)"
            }
        }
    }

    fileprivate enum Operator: Equatable {
        case not, times, divided, modulo, plus, minus, less, greater, lessOrEqual, greaterOrEqual, equal, notEqual
        case and, or, conditional

        var precedence: Int {
            switch self {
            case .not: return 7
            case .times, .divided, .modulo: return 6
            case .plus, .minus: return 5
            case .less, .greater, .lessOrEqual, .greaterOrEqual: return 4
            case .equal, .notEqual: return 3
            case .and: return 2
            case .or: return 1
            case .conditional: return 0
            }
        }

        /// How many values it takes from the stack.
        var operands: Int {
            switch self {
            case .not: return 1
            case .conditional: return 3
            default: return 2
            }
        }

        var isRightAssociative: Bool { self == .not || self == .conditional }
    }

    fileprivate enum Step: Equatable {
        case number(Int)
        case count
        case apply(Operator)
    }

    /// How many forms the language has.
    package let forms: Int
    private let program: [Step]

    /// English's, German's and gettext's rule when a catalog says none: `nplurals=2; plural=(n != 1);`.
    package static let germanic = PluralRule(forms: 2, program: [.count, .number(1), .apply(.notEqual)])

    private init(forms: Int, program: [Step]) {
        self.forms = forms
        self.program = program
    }

    package init(header: String) throws(Failure) {
        guard header.utf8.count <= 1024 else { throw .tooLong }
        var forms: Int?
        var expression: Substring?
        for field in header.split(separator: ";") {
            let parts = field.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].filter { $0 != " " && $0 != "\t" }
            if name == "nplurals" { forms = Int(parts[1].filter { $0 != " " && $0 != "\t" }) }
            if name == "plural" { expression = parts[1] }
        }
        guard let forms, (1...16).contains(forms) else { throw .noCount }
        guard let expression else { throw .unexpected("nothing") }
        self.init(forms: forms, program: try Self.compile(expression))
    }

    /// The form `count` takes: 0 up to `forms - 1`.
    package func form(_ count: Int) -> Int {
        var stack: [Int] = []
        stack.reserveCapacity(self.program.count)
        for step in self.program {
            switch step {
            case .number(let value): stack.append(value)
            case .count: stack.append(count)
            case .apply(let op):
                // `compile` proved each operator finds its operands.
                let right = stack.removeLast()
                switch op {
                case .not: stack.append(right == 0 ? 1 : 0)
                case .conditional:
                    let then = stack.removeLast()
                    let condition = stack.removeLast()
                    // (postfix order: condition, then, else)
                    stack.append(condition != 0 ? then : right)
                default:
                    let left = stack.removeLast()
                    stack.append(Self.apply(op, left, right))
                }
            }
        }
        let form = stack.last ?? 0
        return (0..<self.forms).contains(form) ? form : 0
    }

    private static func apply(_ op: Operator, _ left: Int, _ right: Int) -> Int {
        switch op {
        case .times: return left &* right
        case .divided: return right == 0 ? 0 : left / right
        case .modulo: return right == 0 ? 0 : left % right
        case .plus: return left &+ right
        case .minus: return left &- right
        case .less: return left < right ? 1 : 0
        case .greater: return left > right ? 1 : 0
        case .lessOrEqual: return left <= right ? 1 : 0
        case .greaterOrEqual: return left >= right ? 1 : 0
        case .equal: return left == right ? 1 : 0
        case .notEqual: return left != right ? 1 : 0
        case .and: return left != 0 && right != 0 ? 1 : 0
        case .or: return left != 0 || right != 0 ? 1 : 0
        case .not, .conditional: return 0
        }
    }

    /// What waits on the operator stack while an expression is read.
    private enum Pending {
        case op(Operator)
        case open
        case question
    }

    private static func compile(_ text: Substring) throws(Failure) -> [Step] {
        var output: [Step] = []
        var pending: [Pending] = []
        let bytes = Array(text.utf8)
        var index = 0
        /// Whether the next token is a value (a number, `n`, `!` or `(`) rather than an operator.
        var expectsValue = true

        func push(_ op: Operator) {
            while case .op(let top) = pending.last,
                top.precedence > op.precedence || (top.precedence == op.precedence && !op.isRightAssociative)
            {
                output.append(.apply(top))
                pending.removeLast()
            }
            pending.append(.op(op))
        }

        while index < bytes.count {
            let byte = bytes[index]
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                index += 1
                continue
            }
            if expectsValue {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"):
                    var value = 0
                    while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                        guard value < 1_000_000_000 else { throw .unexpected("a number too large") }
                        value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                        index += 1
                    }
                    output.append(.number(value))
                    expectsValue = false
                case UInt8(ascii: "n"):
                    output.append(.count)
                    index += 1
                    expectsValue = false
                case UInt8(ascii: "!"):
                    pending.append(.op(.not))
                    index += 1
                case UInt8(ascii: "("):
                    pending.append(.open)
                    index += 1
                default: throw .unexpected("'\(Character(Unicode.Scalar(byte)))' where a value belongs")
                }
                continue
            }
            var width = 2
            switch (byte, next) {
            case (UInt8(ascii: "<"), UInt8(ascii: "=")): push(.lessOrEqual)
            case (UInt8(ascii: ">"), UInt8(ascii: "=")): push(.greaterOrEqual)
            case (UInt8(ascii: "="), UInt8(ascii: "=")): push(.equal)
            case (UInt8(ascii: "!"), UInt8(ascii: "=")): push(.notEqual)
            case (UInt8(ascii: "&"), UInt8(ascii: "&")): push(.and)
            case (UInt8(ascii: "|"), UInt8(ascii: "|")): push(.or)
            default:
                width = 1
                switch byte {
                case UInt8(ascii: "*"): push(.times)
                case UInt8(ascii: "/"): push(.divided)
                case UInt8(ascii: "%"): push(.modulo)
                case UInt8(ascii: "+"): push(.plus)
                case UInt8(ascii: "-"): push(.minus)
                case UInt8(ascii: "<"): push(.less)
                case UInt8(ascii: ">"): push(.greater)
                case UInt8(ascii: "?"):
                    while case .op(let top) = pending.last, top != .conditional {
                        output.append(.apply(top))
                        pending.removeLast()
                    }
                    pending.append(.question)
                case UInt8(ascii: ":"):
                    while case .op(let top) = pending.last {
                        output.append(.apply(top))
                        pending.removeLast()
                    }
                    guard case .question = pending.last else { throw .unexpected("a ':' without its '?'") }
                    pending.removeLast()
                    pending.append(.op(.conditional))
                case UInt8(ascii: ")"):
                    while case .op(let top) = pending.last {
                        output.append(.apply(top))
                        pending.removeLast()
                    }
                    guard case .open = pending.last else { throw .unexpected("a ')' without its '('") }
                    pending.removeLast()
                    index += 1
                    continue
                default: throw .unexpected("'\(Character(Unicode.Scalar(byte)))' where an operator belongs")
                }
            }
            index += width
            expectsValue = true
        }
        guard !expectsValue else { throw .unexpected("no value at its end") }
        while let top = pending.popLast() {
            guard case .op(let op) = top else { throw .unexpected("a '(' or '?' left open") }
            output.append(.apply(op))
        }
        // Each operator must find its operands, and one value must be left.
        var depth = 0
        for step in output {
            switch step {
            case .number, .count: depth += 1
            case .apply(let op):
                guard depth >= op.operands else { throw .unexpected("an operator without its operands") }
                depth -= op.operands - 1
            }
        }
        guard depth == 1 else { throw .unexpected("values without operators between them") }
        return output
    }
}
