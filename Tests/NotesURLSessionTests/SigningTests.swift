import Foundation
import NotesFetch
import Testing

@testable import NotesURLSession

/// URLSession cannot sign a request with AWS Signature Version 4: such a request is refused before anything
/// is sent, saying which transport can.
@Suite("URLSession and AWS signatures")
struct SigningTests {
    final class Nothing: HTTPResponseReceiver {
        func receive(head: HTTPResponseHead) -> Bool { true }
        func receive(body chunk: UnsafeRawBufferPointer) -> Bool { true }
    }

    @Test("A request to sign is refused: AWS signatures need libcurl's transport")
    func refused() {
        var request = HTTPRequest(url: "http://127.0.0.1:9/notes")
        request.awsSigV4 = AWSSigV4(
            region: "us-east-1", service: "execute-api", accessKeyID: Secret("a"), secretAccessKey: Secret("b"))
        #expect {
            _ = try URLSessionTransport().perform(request, receiver: Nothing(), cancellation: CancellationFlag())
        } throws: { error in
            "\(error)".contains("AWS signatures need libcurl's transport")
        }
    }
}
