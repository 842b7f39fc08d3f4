(function_item name: (identifier) @name) @def.function
(function_signature_item name: (identifier) @name) @def.method
(struct_item name: (type_identifier) @name) @def.struct
(union_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.interface
(type_item name: (type_identifier) @name) @def.type
(mod_item name: (identifier) @name) @def.module
(const_item name: (identifier) @name) @def.constant
(static_item name: (identifier) @name) @def.variable
(macro_definition name: (identifier) @name) @def.function
(impl_item
  type: [(type_identifier) @receiver (generic_type type: (type_identifier) @receiver)]
  body: (declaration_list (function_item name: (identifier) @name) @def.method))

(impl_item trait: [(type_identifier) @name (generic_type type: (type_identifier) @name)]) @ref.implements
(call_expression function: (identifier) @name) @ref.calls
(call_expression function: (field_expression value: (_) @qualifier field: (field_identifier) @name)) @ref.calls
(call_expression function: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @ref.calls
(macro_invocation macro: (identifier) @name) @ref.calls
(type_identifier) @name @ref.references

(use_declaration argument: (_) @path) @import
(use_declaration argument: (scoped_identifier path: (_) @path name: (identifier) @name)) @import
(use_declaration argument: (use_as_clause path: (scoped_identifier path: (_) @path name: (identifier) @name) alias: (identifier) @alias)) @import
(use_declaration argument: (scoped_use_list path: (_) @path list: (use_list (identifier) @name))) @import
(use_declaration argument: (scoped_use_list path: (_) @path list: (use_list (use_as_clause path: (identifier) @name alias: (identifier) @alias)))) @import
(use_declaration argument: (use_wildcard (_) @path "*" @name)) @import
