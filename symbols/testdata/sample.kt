package com.example.shop

import java.util.ArrayList
import kotlinx.coroutines.*
import com.example.base.Base as ShopBase

/** A cart of items. */
open class Cart(private val limit: Int) : ShopBase(), Container {
    private val items = ArrayList<Item>()

    /** Adds an item. */
    fun add(item: Item) {
        validate(item)
        items.add(item)
    }

    private fun validate(item: Item): Boolean {
        return item.price > 0
    }

    companion object {
        const val MAX_ITEMS = 100

        fun empty(): Cart = Cart(MAX_ITEMS)
    }
}

interface Container {
    fun size(): Int
}

object Registry {
    fun register(cart: Cart) {
        carts.add(cart)
    }
}

enum class Color {
    RED,
    GREEN,
}

data class Item(val name: String, val price: Int)

typealias Handler = (Item) -> Unit

// Totals the prices.
fun Cart.total(): Int = 0

val defaultCart = Cart.empty()

/** Keys a value. */
fun interface Keyer<T : Any> {
    fun key(data: T): String?
}

fun build(builder: Cart.() -> Unit): Cart = Cart(1).apply(builder)
