package shop

import (
	"fmt"
	str "strings"
)

// MaxItems bounds a cart.
const MaxItems = 10

var registry = map[string]*Cart{}

// Cart holds items.
type Cart struct {
	Base
	Items []Item
}

// Item is one product.
type Item interface {
	Price() int
}

type ID = string

// Add puts an item in the cart.
func (c *Cart) Add(it Item) error {
	if len(c.Items) >= MaxItems {
		return fmt.Errorf("full")
	}
	c.Items = append(c.Items, it)
	return c.validate()
}

func (c *Cart) validate() error { return nil }

// NewCart makes a cart.
func NewCart() *Cart {
	c := &Cart{}
	c.Add(nil)
	_ = str.ToUpper("x")
	return c
}
