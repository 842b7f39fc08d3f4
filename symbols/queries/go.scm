; Go: tags-style query. Captures: @def.<kind> + @name, @receiver for methods,
; @ref.<edge> + @name (+ @qualifier), @import + @path (+ @alias), @package.

(package_clause (package_identifier) @name) @package

(import_spec name: (_) @alias path: (_) @path) @import
(import_spec !name path: (_) @path) @import

(function_declaration name: (identifier) @name) @def.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name) @def.method

(type_spec name: (type_identifier) @name type: (struct_type)) @def.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @def.interface
(type_spec name: (type_identifier) @name
  type: [(type_identifier) (qualified_type) (pointer_type) (slice_type) (array_type) (map_type)
         (function_type) (channel_type) (generic_type)]) @def.type
(type_alias name: (type_identifier) @name) @def.type

(source_file (const_declaration (const_spec name: (identifier) @name) @def.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @def.variable))

(call_expression function: (identifier) @name) @ref.calls
(call_expression
  function: (selector_expression operand: (_) @qualifier field: (field_identifier) @name)) @ref.calls

(qualified_type package: (package_identifier) @qualifier name: (type_identifier) @name) @ref.references
(type_identifier) @name @ref.references

(field_declaration !name type: (type_identifier) @name) @ref.extends
(field_declaration !name type: (pointer_type (type_identifier) @name)) @ref.extends
(field_declaration !name type: (qualified_type package: (_) @qualifier name: (_) @name)) @ref.extends
