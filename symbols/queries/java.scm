(package_declaration [(scoped_identifier) (identifier)] @name) @package
(import_declaration . [(scoped_identifier) (identifier)] @path .) @import
(import_declaration "static" @static [(scoped_identifier) (identifier)] @path .) @import
(import_declaration [(scoped_identifier) (identifier)] @path (asterisk) @name) @import

(class_declaration name: (identifier) @name) @def.class
(record_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(annotation_type_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.method

(superclass (type_identifier) @name) @ref.extends
(super_interfaces (type_list (type_identifier) @name)) @ref.implements
(extends_interfaces (type_list (type_identifier) @name)) @ref.extends
(method_invocation object: (_) @qualifier name: (identifier) @name) @ref.calls
(method_invocation !object name: (identifier) @name) @ref.calls
(object_creation_expression type: (type_identifier) @name) @ref.calls
(type_identifier) @name @ref.references
