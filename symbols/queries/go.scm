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

; Names declared inside functions (@local + @name, @type when written), so
; that a selector on a typed local names its type's method and a local used
; as a value is not taken for a function. Top-level var specs count too.
; Extract types a local without a written type by its first value, and a
; selector through a field or a call by the struct's or function's
; declaration, from the syntax tree when a selector needs it: patterns for
; every value, field and result would cost a match each on every file.
(parameter_declaration name: (identifier) @name type: (_) @type) @local
(variadic_parameter_declaration name: (identifier) @name) @local
(var_spec name: (identifier) @name type: (_)? @type) @local
(short_var_declaration left: (expression_list (identifier) @name)) @local
(range_clause left: (expression_list (identifier) @name)) @local

; Functions and methods used as values: passed, assigned or set in a
; composite literal. Locals of the same name are dropped by Extract. Returns
; and := are left out: there a bare name is nearly always a variable, and
; every match costs extraction time on every Go file.
(argument_list (identifier) @name @ref.value)
(argument_list (selector_expression operand: (identifier) @qualifier field: (field_identifier) @name) @ref.value)
(keyed_element . (_) (literal_element (identifier) @name) @ref.value)
(keyed_element . (_) (literal_element (selector_expression operand: (identifier) @qualifier field: (field_identifier) @name)) @ref.value)
(assignment_statement right: (expression_list (identifier) @name @ref.value))
(assignment_statement right: (expression_list (selector_expression operand: (identifier) @qualifier field: (field_identifier) @name) @ref.value))
