/// A page configuration checked and made ready once for every page read with it: its paths checked
/// against each other (``PageConfiguration/pathProblem``), and the next paths to look for
/// (``PathDetection/next``) added to those read.
///
/// A walk makes one for each way it reads its pages, not one a page: with the next paths to look for,
/// checking every path against every other costs some 100,000 instructions, more than the notes of a
/// small page.
package struct PagePlan: Sendable {
    package let configuration: PageConfiguration
    /// What the page's assembler reads: the configuration, the next paths looked for among its field paths.
    let reading: PageConfiguration
    /// The next paths read for ``PathDetection/next``, after the configuration's field paths.
    let nextCandidates: [FieldPath]
    /// Where each of the configuration's field paths first is among them: what a page's values are found
    /// by (a walk asks each page for some forty signal paths, and a search of the field paths for each cost
    /// more than the notes of a small page).
    package let fieldPositions: [FieldPath: Int]

    /// - Precondition: `configuration` has no ``PageConfiguration/pathProblem``.
    package init(_ configuration: PageConfiguration) {
        precondition(configuration.pathProblem == nil, configuration.pathProblem ?? "")
        self.configuration = configuration
        var reading = configuration
        var candidates: [FieldPath] = []
        if configuration.detects.contains(.next) {
            for path in PathDetection.nextPaths where reading.canRead(path) {
                reading.fieldPaths.append(path)
                candidates.append(path)
            }
        }
        self.reading = reading
        nextCandidates = candidates
        var positions: [FieldPath: Int] = [:]
        for (position, path) in configuration.fieldPaths.enumerated() where positions[path] == nil {
            positions[path] = position
        }
        fieldPositions = positions
    }
}
