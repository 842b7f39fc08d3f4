<?php
namespace App\Shop;

use App\Models\Item;

/** A cart. */
class Cart extends Base implements Container
{
    /** Adds an item. */
    public function add(Item $it): void
    {
        $this->validate($it);
        helper($it);
    }
}

interface Container {}

function helper($x) { return Util::wrap($x); }
