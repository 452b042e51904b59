import NotesStore
import Testing

@Suite("Ranges of pages: their keys, and the ranges a page brings")
struct PageRangeTests {
    @Test("A range's key reads back as the same range; anything else is no range")
    func keys() {
        let range = PageRange(first: 51, count: 50)
        #expect(range.key == "pages 51-100")
        #expect(PageRange(key: range.key) == range)
        #expect(PageRange(key: "pages 1-1") == PageRange(first: 1, count: 1))
        for key in [
            "", "pages", "pages 1", "pages 0-10", "pages 10-9", "pages -1-10", "pages 1-10-20", "page 1-10",
            "pages 1-99999999999999999999", "pages ١-٢", "pages +1-10", "2020-01-01T00:00:00Z/2020-01-02T00:00:00Z",
        ] {
            #expect(PageRange(key: key) == nil, "\(key)")
        }
    }

    @Test("A first page that names the last page brings every range after this one up to it, and no further")
    func lastPage() {
        let first = PageRange(first: 1, count: 10)
        #expect(
            first.following(lastPage: 35, followed: false).map(\.key) == ["pages 11-20", "pages 21-30", "pages 31-40"])
        #expect(first.following(lastPage: 30, followed: false).map(\.key) == ["pages 11-20", "pages 21-30"])
        #expect(first.following(lastPage: 10, followed: false).isEmpty)
        #expect(first.following(lastPage: 1, followed: false).isEmpty)
        #expect(first.following(lastPage: nil, followed: false).isEmpty)
        // A later range's first page brings those after it alone.
        #expect(PageRange(first: 21, count: 10).following(lastPage: 35, followed: false).map(\.key) == ["pages 31-40"])
    }

    @Test(
        "A last page followed by another brings the next range; a server announcing billions of pages, a bounded number"
    )
    func followed() {
        let range = PageRange(first: 11, count: 10)
        #expect(range.following(lastPage: nil, followed: true).map(\.key) == ["pages 21-30"])
        #expect(range.following(lastPage: 5, followed: true).map(\.key) == ["pages 21-30"])
        let huge = PageRange(first: 1, count: 1).following(lastPage: .max, followed: false)
        #expect(huge.count == PageRange.maxBrought)
        #expect(huge.last?.key == "pages \(PageRange.maxBrought + 1)-\(PageRange.maxBrought + 1)")
    }
}
