package com.example.shop;

import java.util.List;

/** A cart of items. */
public class Cart extends Base implements Container {
    private List<Item> items;

    /** Adds an item. */
    public void add(Item it) {
        items.add(it);
        validate();
    }

    private void validate() {}
}

interface Container {
    void add(Item it);
}

enum Color { RED }
