(function_definition declarator: (function_declarator declarator: (identifier) @name)) @def.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @def.function
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @def.method
(function_definition declarator: (function_declarator
  declarator: (qualified_identifier scope: (namespace_identifier) @receiver name: (identifier) @name))) @def.method
(field_declaration declarator: (function_declarator declarator: (field_identifier) @name)) @def.method
(declaration declarator: (function_declarator declarator: (identifier) @name)) @def.function
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(union_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
(namespace_definition name: (namespace_identifier) @name) @def.module
(type_definition declarator: (type_identifier) @name) @def.type
(alias_declaration name: (type_identifier) @name) @def.type
(preproc_function_def name: (identifier) @name) @def.function
(preproc_def name: (identifier) @name) @def.constant

(base_class_clause (type_identifier) @name) @ref.extends
(base_class_clause (qualified_identifier scope: (_) @qualifier name: (type_identifier) @name)) @ref.extends
(call_expression function: (identifier) @name) @ref.calls
(call_expression function: (field_expression argument: (_) @qualifier field: (field_identifier) @name)) @ref.calls
(call_expression function: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)) @ref.calls
(type_identifier) @name @ref.references

(preproc_include path: (_) @path) @import
