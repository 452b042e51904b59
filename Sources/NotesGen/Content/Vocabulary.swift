/// The words notes are made of, as JSON string content: escapes are written out, so a fragment goes
/// into a string as is. Each list mixes plain ASCII with what a decoder must get right: accents, CJK,
/// emoji (raw, and as `\uXXXX` surrogate pairs), escaped quotes, backslashes, `\/` and control
/// characters.
final class Vocabulary {
    /// Title words: mostly plain.
    let plainWords = FragmentTable([
        "Groceries", "meeting", "notes", "plan", "draft", "ideas", "Q3", "review", "budget", "todo", "call",
        "Mom", "weekly", "sync", "release", "v2.1", "reading", "list", "recipe", "trip", "to", "Berlin",
        "invoice", "#42", "project", "roadmap", "lunch", "with", "the", "team", "book", "gym", "2026",
        "follow-up", "and", "for", "TODO", "(draft)", "WIP", "misc", "pay", "rent", "fix", "bug", "in",
        "parser", "backup", "photos", "dentist", "Monday", "Friday", "standup", "retro", "agenda",
        "quarterly", "OKRs", "taxes", "garden", "birthday", "gift", "flight", "hotel", "car", "service",
        "100%", "&", "x/y", "e-mail", "it's", "a+b=c", "[urgent]", "{json}", "<b>bold</b>", "#tag",
        "@alice", "$19.99", "~home", "key:value", "semi;colon", "a,b,c", "'single'", "`code`", "50/50",
    ])

    /// Title words with accents or other scripts, raw UTF-8 or escaped (upper- and lowercase hex).
    let accentedWords = FragmentTable([
        "café", "naïve", "Zürich", "façade", "résumé", "Ærøskøbing", "São Paulo", "Kraków", "piñata",
        "crème brûlée", "Ελληνικά", "Москва", "İstanbul", "Đà Nẵng", "smörgåsbord", "œuvre", "straße",
        #"Caf\u00e9"#, #"na\u00efve"#, #"\u00dcbung"#, #"Ame\u0301lie"#, #"\u00C5ngstr\u00F6m"#,
        #"Stra\u00DFe"#, #"\u041c\u043e\u0441\u043a\u0432\u0430"#,
    ])

    /// CJK words, including a character outside the BMP (𠮷), raw and as a surrogate pair.
    let cjkWords = FragmentTable([
        "日本語", "会議", "メモ", "笔记", "회의", "東京", "買い物リスト", "の", "中文笔记", "ひらがな", "カタカナ",
        "𠮷野家", #"\u65e5\u672c\u8a9e"#, #"\u4f1a\u8b70"#, #"\ud842\udfb7"#,
    ])

    /// Emoji, including modifiers, ZWJ sequences and flags, raw and escaped.
    let emoji = FragmentTable([
        "😀", "🚀", "📝", "✅", "🎉", "👍🏽", "👨‍👩‍👧", "🇫🇷", "❤️", "☕",
        #"\ud83d\ude00"#, #"\ud83d\ude80"#, #"\uD83D\uDCDD"#, #"\u2705"#, #"\ud83c\uddeb\ud83c\uddf7"#,
    ])

    /// Escapes a decoder must undo: quotes, backslashes, `\/`, control characters, NUL, U+2028.
    let escapedWords = FragmentTable([
        #"\"quoted\""#, #"back\\slash"#, #"C:\\Users\\me"#, #"a\/b"#, #"<\/script>"#, #"line\nbreak"#,
        #"tab\there"#, #"\u0001ctrl"#, #"cr\r\nlf"#, #"bell\u0007"#, #"\b\f"#, #"\u0000nul"#,
        #"say \"hi\""#, #"\\\"both\\\""#, #"end\\"#, #"\u001f"#, #"\u007f"#, "del\u{7F}", #"\u2028sep"#,
    ])

    /// What goes between title words.
    let separators = FragmentTable([" ", " ", " ", " ", " ", " ", " ", " - ", ": ", ", ", " / ", " · ", #"\t"#])

    let tags = FragmentTable([
        "work", "home", "urgent", "later", "idea", "reading", "à faire", "日本", "🔥", "q3-2026", "#inbox",
        #"\u00e9t\u00e9"#, "a b", "",
    ])

    let names = FragmentTable([
        "Zoë", "José", "Ærin", "李雷", "Søren", "O'Brien", #"D\u00e9j\u00e0"#, "alice", "Bob", "Анна",
        #"\"Q\""#,
    ])

    /// Numbers at the edges: 64-bit extremes, more digits than any integer type, underflow, negative zero.
    let extremeNumbers = FragmentTable([
        "-9223372036854775808", "9223372036854775807", "18446744073709551615", "123456789012345678901234567890",
        "1e-400", "-0", "0.1e1", "1e308", "-1.7976931348623157e308", "5e-324",
    ])

    /// Id suffixes after a path-like separator, as written and as decoded. Each starts with a byte
    /// outside `[0-9a-z]`, which keeps ids unique (see ``NoteRenderer``).
    let idPaths = FragmentTable([
        #"\/draft"#, #"\/v2"#, "/archive", #"\/2026\/03"#, #"\"q\""#, #"\\x"#, "#frag", "?a=1&b=2",
    ])
    let idPathsDecoded = FragmentTable(["/draft", "/v2", "/archive", "/2026/03", "\"q\"", "\\x", "#frag", "?a=1&b=2"])

    /// Id suffixes with non-ASCII text, as written and as decoded.
    let idTexts = FragmentTable([
        ".ü", #".caf\u00e9"#, ".日本", #".\u00f1"#, ".😀", #".\ud83d\ude80"#, #"~\u0416"#,
    ])
    let idTextsDecoded = FragmentTable([".ü", ".café", ".日本", ".ñ", ".😀", ".🚀", "~Ж"])

    /// `0-9A-Za-z`, for random id suffixes.
    let alphanumerics = FragmentTable(["0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"])
}
