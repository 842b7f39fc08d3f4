(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (identifier) @name) @def.class
(method_definition name: (property_identifier) @name) @def.method
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable))
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name) @def.variable)))

(class_heritage (identifier) @name) @ref.extends
(class_heritage (member_expression object: (_) @qualifier property: (property_identifier) @name)) @ref.extends
(call_expression function: (identifier) @name) @ref.calls
(call_expression function: (member_expression object: (_) @qualifier property: (property_identifier) @name)) @ref.calls
(new_expression constructor: (identifier) @name) @ref.calls

(import_statement source: (string (string_fragment) @path)) @import
(call_expression function: (identifier) @_fn arguments: (arguments . (string (string_fragment) @path)) (#eq? @_fn "require")) @import
