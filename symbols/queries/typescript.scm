(function_declaration name: (identifier) @name) @def.function
(function_signature name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type
(enum_declaration name: (identifier) @name) @def.enum
(internal_module name: (identifier) @name) @def.module
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @def.method
(method_signature name: (property_identifier) @name) @def.method
(abstract_method_signature name: (property_identifier) @name) @def.method
; A class field that holds a function is a method: handler = () => {}, json: JSONRespond = (...) => {}.
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function) (function_expression)]) @def.method
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable)))

(extends_clause value: (identifier) @name) @ref.extends
(extends_clause value: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @ref.extends
(implements_clause (type_identifier) @name) @ref.implements
(extends_type_clause type: (type_identifier) @name) @ref.extends
(call_expression function: (identifier) @name) @ref.calls
(call_expression function: (member_expression object: (_) @qualifier property: [(property_identifier) (private_property_identifier)] @name)) @ref.calls
(new_expression constructor: (identifier) @name) @ref.calls
(type_identifier) @name @ref.references

(import_statement source: (string (string_fragment) @path)) @import
(call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path)) (#eq? @_fn "require")) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @name !alias))) source: (string (string_fragment) @path)) @import
(import_statement (import_clause (named_imports (import_specifier name: (identifier) @name alias: (identifier) @alias))) source: (string (string_fragment) @path)) @import
(import_statement (import_clause (namespace_import (identifier) @alias)) source: (string (string_fragment) @path)) @import
(import_statement (import_clause . (identifier) @default) source: (string (string_fragment) @path)) @import
(variable_declarator name: (identifier) @alias value: (call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path))) (#eq? @_fn "require")) @import
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name) value: (call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path))) (#eq? @_fn "require")) @import
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @name value: (identifier) @alias)) value: (call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path))) (#eq? @_fn "require")) @import
(export_statement (export_clause (export_specifier name: (identifier) @name !alias)) source: (string (string_fragment) @path)) @import
(export_statement (export_clause (export_specifier name: (identifier) @name alias: (identifier) @alias)) source: (string (string_fragment) @path)) @import
(export_statement "*" @name source: (string (string_fragment) @path)) @import

; A `<` after a line break read as type arguments, or left in an error: overloads that begin with their type parameters (symbols/misread.go).
(generic_type type_arguments: (type_arguments) @name) @misread
(ERROR (type_parameters) @name) @misread
(ERROR "<" @name) @misread
