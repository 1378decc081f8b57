/// Text folded for search as SQLite's FTS5 tokenizer `unicode61 remove_diacritics 2` folds it: lower case, and
/// Latin letters without their marks (`É` → `e`, `ş` → `s`), Latin's combining accents dropped; other scripts' marks
/// (a Thai tone mark) kept.
///
/// A table rather than `folding(options:)`, which is Foundation's (not FoundationEssentials'): see `Zone`. It
/// covers Latin-1, Latin Extended-A and B and Latin Extended Additional, the letters FTS5 folds.
package func foldedForSearch(_ text: String) -> String {
    var folded = String.UnicodeScalarView()
    for scalar in text.lowercased().unicodeScalars {
        if let plain = searchFolding[scalar] {
            folded.append(plain)
        } else if !isFoldedDiacritic(scalar) {
            folded.append(scalar)
        }
    }
    return String(folded)
}

/// The combining marks `remove_diacritics` drops (SQLite's `sqlite3Fts5UnicodeIsdiacritic`: some of U+0300–U+0331,
/// Latin's accents written apart from their letter). Other marks stay, as the index keeps them (`categories 'L* N*
/// Co M*'`): a Thai tone mark or a Khmer vowel sign is part of its word.
private func isFoldedDiacritic(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    guard (768...817).contains(value) else { return false }
    let (mask0, mask1): (UInt32, UInt32) = (0x0802_9FDF, 0x0003_61F8)
    return value < 800 ? mask0 & (1 << (value - 768)) != 0 : mask1 & (1 << (value - 800)) != 0
}

private let searchFolding: [Unicode.Scalar: Unicode.Scalar] = {
    let marked =
        "ÀÁÂÃÄÅÇÈÉÊËÌÍÎÏÑÒÓÔÕÖÙÚÛÜÝàáâãäåçèéêëìíîïñòóôõöùúûüýÿĀāĂăĄąĆćĈĉĊċČčĎďĒēĔĕĖėĘęĚěĜĝĞğĠġĢģĤĥĨ"
        + "ĩĪīĬĭĮįİĴĵĶķĹĺĻļĽľŃńŅņŇňŌōŎŏŐőŔŕŖŗŘřŚśŜŝŞşŠšŢţŤťŨũŪūŬŭŮůŰűŲųŴŵŶŷŸŹźŻżŽžƠơƯưǍǎǏǐǑǒǓǔǕǖǗǘǙǚǛ"
        + "ǜǞǟǠǡǦǧǨǩǪǫǬǭǰǴǵǸǹǺǻȀȁȂȃȄȅȆȇȈȉȊȋȌȍȎȏȐȑȒȓȔȕȖȗȘșȚțȞȟȦȧȨȩȪȫȬȭȮȯȰȱȲȳḀḁḂḃḄḅḆḇḈḉḊḋḌḍḎḏḐḑḒḓḔḕḖḗḘḙ"
        + "ḚḛḜḝḞḟḠḡḢḣḤḥḦḧḨḩḪḫḬḭḮḯḰḱḲḳḴḵḶḷḸḹḺḻḼḽḾḿṀṁṂṃṄṅṆṇṈṉṊṋṌṍṎṏṐṑṒṓṔṕṖṗṘṙṚṛṜṝṞṟṠṡṢṣṤṥṦṧṨṩṪṫṬṭṮṯṰṱṲṳ"
        + "ṴṵṶṷṸṹṺṻṼṽṾṿẀẁẂẃẄẅẆẇẈẉẊẋẌẍẎẏẐẑẒẓẔẕẖẗẘẙẠạẢảẤấẦầẨẩẪẫẬậẮắẰằẲẳẴẵẶặẸẹẺẻẼẽẾếỀềỂểỄễỆệỈỉỊịỌọỎỏỐốỒồ"
        + "ỔổỖỗỘộỚớỜờỞởỠỡỢợỤụỦủỨứỪừỬửỮữỰựỲỳỴỵỶỷỸỹ"
    let plain =
        "AAAAAACEEEEIIIINOOOOOUUUUYaaaaaaceeeeiiiinooooouuuuyyAaAaAaCcCcCcCcDdEeEeEeEeEeGgGgGgGgHhI"
        + "iIiIiIiIJjKkLlLlLlNnNnNnOoOoOoRrRrRrSsSsSsSsTtTtUuUuUuUuUuUuWwYyYZzZzZzOoUuAaIiOoUuUuUuUuU"
        + "uAaAaGgKkOoOojGgNnAaAaAaEeEeIiIiOoOoRrRrUuUuSsTtHhAaEeOoOoOoOoYyAaBbBbBbCcDdDdDdDdDdEeEeEe"
        + "EeEeFfGgHhHhHhHhHhIiIiKkKkKkLlLlLlLlMmMmMmNnNnNnNnOoOoOoOoPpPpRrRrRrRrSsSsSsSsSsTtTtTtTtUu"
        + "UuUuUuUuVvVvWwWwWwWwWwXxXxYyZzZzZzhtwyAaAaAaAaAaAaAaAaAaAaAaAaEeEeEeEeEeEeEeEeIiIiOoOoOoOo"
        + "OoOoOoOoOoOoOoOoUuUuUuUuUuUuUuYyYyYyYy"
    return Dictionary(
        zip(marked.unicodeScalars, plain.lowercased().unicodeScalars).map { ($0, $1) },
        uniquingKeysWith: { first, _ in first })
}()
