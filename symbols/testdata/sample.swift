import Foundation
import struct Alamofire.HTTPHeaders

/// A cart of items.
public final class Cart: Base, Container {
    private var items: [Item] = []
    static let maxItems = 100

    /// Adds an item.
    public func add(_ item: Item) {
        validate(item)
        items.append(item)
    }

    init(limit: Int) {
        super.init()
    }

    var count: Int { items.count }
}

protocol Container {
    func size() -> Int
}

struct Item: Codable {
    let name: String
}

enum Color {
    case red, green
}

extension Cart {
    func total() -> Int { return 0 }
}

typealias Handler = (Item) -> Void

func helper(x: Int) -> Int {
    return Session.default.request(x)
}

let defaultCart = Cart(limit: 3)
actor Counter {
    func bump() {}
}
