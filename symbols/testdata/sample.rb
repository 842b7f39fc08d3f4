require 'json'
require_relative 'base'

# A cart of items.
class Cart < Base
  # Adds an item.
  def add(item)
    validate(item)
    @items.push(item)
  end
end

module Shop
  def self.open
    Cart.new
  end
end

LIMIT = 10
