(namespace_definition name: (namespace_name) @name) @package
(class_declaration name: (name) @name) @def.class
(interface_declaration name: (name) @name) @def.interface
(trait_declaration name: (name) @name) @def.interface
(enum_declaration name: (name) @name) @def.enum
(function_definition name: (name) @name) @def.function
(method_declaration name: (name) @name) @def.method

(base_clause (name) @name) @ref.extends
(base_clause (qualified_name (name) @name)) @ref.extends
(class_interface_clause (name) @name) @ref.implements
(function_call_expression function: (name) @name) @ref.calls
(member_call_expression object: (_) @qualifier name: (name) @name) @ref.calls
(scoped_call_expression scope: (_) @qualifier name: (name) @name) @ref.calls
(object_creation_expression (name) @name) @ref.calls

(namespace_use_clause (qualified_name) @path) @import
