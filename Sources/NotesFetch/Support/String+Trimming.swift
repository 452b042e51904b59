extension String {
    /// The string without the given characters at either end.
    package func trimming(_ characters: String) -> String {
        var text = Substring(self)
        while let first = text.first, characters.contains(first) { text.removeFirst() }
        while let last = text.last, characters.contains(last) { text.removeLast() }
        return String(text)
    }
}
