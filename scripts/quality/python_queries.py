# ruff: noqa: E501  (one question per line: a row of the table is never wrapped)
"""Hand-written lay questions about the Python reference passages, graded by every fitting one.

Written for this set from the passages' text (`python_topics.py`), the way
someone who does not know the terms would ask; never tuned against what a
retriever returns. Each line of `_QUESTIONS`: the question, the passage it
was written for (grade 2; ids without the `python:` prefix) and the other
passages a reader would also accept (grade 1), separated by ` | `; a line
starting with `#` names a group.
"""

from __future__ import annotations

_QUESTIONS = """
# text
make every letter in a piece of text a capital letter | str.upper
turn text into all small letters | str.lower | str.casefold
make only the first letter of a sentence a capital | str.capitalize
make the first letter of every word a capital, like a book title | str.title
compare words while ignoring upper and lower case, even German letters | str.casefold | str.lower
put text in the middle of a wider line, padded with spaces | str.center
how many times a word appears inside a sentence | str.count
turn text into raw bytes to save or send it | str.encode
check whether a file name ends with .txt | str.endswith
check whether a line starts with a certain word | str.startswith
replace tab characters with spaces | str.expandtabs
find the position where a word first appears in a text | str.find
find the last place a word appears in a text | str.rfind
fill in the blanks of a text template with values | str.format | format-string-syntax | str.format_map | format-examples
fill a text template using the values from a dictionary | str.format_map | str.format
check that text has only letters and numbers and nothing else | str.isalnum
check that text contains only letters of the alphabet | str.isalpha
check whether text uses only plain English keyboard characters | str.isascii
check whether some text is a whole number written in digits | str.isdecimal | str.isdigit | str.isnumeric
check whether every character is a digit, superscript ones too | str.isdigit
check whether a word could be used as a variable name | str.isidentifier | identifiers-and-keywords
do fractions and roman numerals count as numbers in a text check | str.isnumeric
check whether text can be shown on screen without hidden control characters | str.isprintable
check whether a text is nothing but blank spaces | str.isspace
check whether every word starts with a capital letter | str.istitle
check whether text is shouting in all capitals | str.isupper
glue a list of words together with commas between them | str.join
line text up on the left of a column, padding the right side | str.ljust
right align numbers in a column by padding on the left | str.rjust | str.zfill | format-specification-mini-language
remove the spaces at the start of a line | str.lstrip | str.strip
remove spaces or the newline at the end of a line | str.rstrip | str.strip
trim the spaces off both ends of what a user typed | str.strip
build a table that swaps some letters for others | str.maketrans | str.translate
swap or delete certain characters all through a text using a lookup table | str.translate | str.maketrans
split text into the part before and after the first equals sign | str.partition
split a file path at the last slash into the folder and the name | str.rpartition | str.rsplit
remove a fixed word from the beginning of text if it is there | str.removeprefix
cut the extension off the end of a file name | str.removesuffix
swap every occurrence of one word for another in a text | str.replace
break a sentence into a list of words | str.split | str.rsplit
split text starting from the right, only a limited number of times | str.rsplit
break a long text into its separate lines | str.splitlines
flip capital letters to small ones and small ones to capitals | str.swapcase
pad a number with zeros at the front, like 007 | str.zfill | format-specification-mini-language
all the things you can do with text, like searching it and changing case | string-methods
how to write text in code with quotes, triple quotes for several lines | string-and-bytes-literals
write a new line or a tab inside quoted text with a backslash | escape-sequences
raw text where backslashes are kept exactly as typed | string-and-bytes-literals | escape-sequences
how placeholders in curly braces inside a text template work | format-string-syntax | str.format
control the number of decimal places and the width when printing a number | format-specification-mini-language | format-examples
show a big number with commas separating the thousands | format-specification-mini-language | format-examples
examples of printing numbers as percentages or in binary | format-examples | format-specification-mini-language
how an object decides how it looks when formatted into text | object.__format__
# numbers
how to write whole numbers in hexadecimal or binary in code | integer-literals
underscores inside long numbers to make them easier to read | integer-literals | floating-point-literals
writing decimal numbers with an exponent like 1e10 | floating-point-literals
writing a number with an imaginary part, like 3j | imaginary-literals | numbers.complex-complex
the kinds of numbers you can type straight into code | numeric-literals | literals
raise a number to a power | the-power-operator
how division, remainders and rounding down division work | binary-arithmetic-operations
why adding a whole number and a decimal gives a decimal | arithmetic-conversions
make a number negative or flip all of its bits | unary-arithmetic-and-bitwise-operations
move the bits of a number to the left or right | shifting-operations
combine two numbers bit by bit with and, or, exclusive or | binary-bitwise-operations
which part of a formula is worked out first when it mixes plus, times and comparisons | operator-precedence
whole numbers of any size, and true and false counting as 1 and 0 | numbers.integral
numbers with a decimal point stored with limited machine precision | numbers.real-float
numbers with a real part and an imaginary part | numbers.complex-complex | imaginary-literals
make your own kind of object work with plus and minus signs | emulating-numeric-types
let your object be used as a list position like a whole number | object.__index__
# comparisons and truth
check whether two values are equal or which one is bigger | value-comparisons | comparisons
chain comparisons like a < b < c | comparisons
check whether an item is inside a list | membership-test-operations | object.__contains__ | common-sequence-operations
check whether two variables point to the very same object | identity-comparisons
how and, or and not work and what they give back | boolean-operations
which values count as false, like empty lists and zero | truth-value-testing | object.__bool__
decide whether your object counts as true or false | object.__bool__ | truth-value-testing
# control flow
run some code only when a condition holds, otherwise something else | the-if-statement
repeat code as long as a condition stays true | the-while-statement
go through each item of a list one at a time | the-for-statement
stop a loop early | the-break-statement
skip the rest of this round of a loop and go on to the next | the-continue-statement
a line that does nothing, kept as a placeholder | the-pass-statement
send a value back from a function | the-return-statement
handle errors so that the program does not crash | the-try-statement | except-clause | exceptions
catch one particular kind of error and respond to it | except-clause | the-try-statement
handle several errors raised together as a group | except-clause-2
code that runs only if nothing went wrong in the try block | else-clause
clean-up code that always runs whether there was an error or not | finally-clause
throw an error on purpose | the-raise-statement
raise a new error but keep the original cause attached to it | the-raise-statement
what errors are and how they break the normal flow of a program | exceptions
check that something is true while testing, and stop if it is not | the-assert-statement
open a file so that it gets closed automatically when you are done | the-with-statement | with-statement-context-managers
the object that sets things up and tidies them away around a with block | with-statement-context-managers | object.__enter__ | object.__exit__ | the-with-statement
what happens when a with block is entered | object.__enter__ | the-with-statement
what happens when leaving a with block, also when an error happened inside | object.__exit__ | the-with-statement
choose what to do based on the shape of a value, like a switch statement | the-match-statement | overview
step by step, how a match statement picks which case runs | overview
an extra condition attached to one case of a match statement | guards
a catch-all case at the end that matches anything | irrefutable-case-blocks | wildcard-patterns
the underscore that matches anything without saving it | wildcard-patterns
match one of several alternatives separated by a vertical bar | or-patterns
match a pattern and also keep the matched value under a name | as-patterns | capture-patterns
match a list by its elements in a case | sequence-patterns
match a dictionary that has certain keys in a case | mapping-patterns
match an object of some class and its attributes in a case | class-patterns
match against a fixed number or string in a case | literal-patterns
match against a named constant such as Color.RED | value-patterns
keep the matched value in a variable in a case | capture-patterns
let a class accept positional arguments when it is pattern matched | object.__match_args__ | customizing-positional-arguments-in-class-pattern-matching
# functions
write your own function with parameters and default values | function-definitions
a small nameless one-line function | lambdas
call a function with arguments, keyword arguments and *args | calls
a function that produces values one at a time, pausing in between | generator-functions | the-yield-statement
hand a value back from a generator and carry on from there later | the-yield-statement | generator-functions
define a function that can pause while it waits for something, with async | coroutine-function-definition | coroutine-functions
wait for an asynchronous task to finish inside async code | await-expression
loop over items that arrive asynchronously | the-async-for-statement | asynchronous-generator-functions
a with block for asynchronous set-up and clean-up | the-async-with-statement
an async function that also yields values | asynchronous-generator-functions
the attributes a function carries, like its name, defaults and docstring | user-defined-functions
functions built into the language and written in C, like len | built-in-functions
the difference between a plain function and a method bound to an object | instance-methods | methods
a method that is not handed the object it is called on | static-method-objects
a method that receives the class instead of the instance | class-method-objects
the only thing you can do with a function object is call it | functions
make your objects callable like functions | object.__call__
a function that works for any type, using a type parameter in square brackets | generic-functions | type-parameter-lists
the type variables in square brackets after a function or class name | type-parameter-lists
# names and scope
give a variable a value | assignment-statements
unpack several values into several variables at once | assignment-statements
the shortcut x += 1 for updating a variable | augmented-assignment-statements
say what type a variable should hold, with a colon | annotated-assignment-statements
delete a variable or an item from a list | the-del-statement
change a variable at the top of the file from inside a function | the-global-statement
change a variable of the outer function from an inner function | the-nonlocal-statement
where a variable name can be seen and how Python looks it up | resolution-of-names | binding-of-names
what creates a name: assignments, imports, function parameters | binding-of-names
what the blocks of a program are: modules, function bodies, class bodies | structure-of-a-program
which characters are allowed in variable names | identifiers-and-keywords
words you cannot use as variable names because they are reserved | keywords | identifiers-and-keywords
words like match and case that are reserved only in some places | soft-keywords
names that start and end with two underscores and what they mean | reserved-classes-of-identifiers | special-method-names
the built-in names like print that are available everywhere | builtins-and-restricted-execution
a variable of a function used by code run with eval or exec | interaction-with-dynamic-features
define a type alias with the type keyword | generic-type-aliases | lazy-evaluation
type alias values worked out only when they are needed | lazy-evaluation
the scope that type parameters live in | annotation-scopes
# modules
load code from another file or a library into your program | the-import-statement
turn on a feature of a newer Python version early | future-statements
what a module object is and what it holds, like its file name | modules | modules-2
decide what happens when a missing name is looked up on a module | customizing-module-attribute-access
# classes and objects
create your own type of object with a class | class-definitions | custom-classes
the method that sets up a new object when it is made | object.__init__ | object.__new__
the method that actually creates an object before it is set up | object.__new__
code that runs when an object is about to be thrown away | object.__del__
how an object is shown for debugging in the console | object.__repr__ | object.__str__
the friendly text shown when you print an object | object.__str__
make your objects usable as dictionary keys | object.__hash__ | dictionaries | mapping-types-dict
what happens when you read an attribute that does not exist | object.__getattr__
intercept every attribute lookup on an object | object.__getattribute__
run code whenever an attribute is set on an object | object.__setattr__
run code when an attribute is deleted | object.__delattr__
an attribute that controls its own getting and setting, like a property | implementing-descriptors | invoking-descriptors | object.__get__
how Python decides which descriptor method runs when an attribute is read | invoking-descriptors
save memory by fixing the attributes an object is allowed to have | object.__slots__ | __slots__
how dotted names like obj.name are worked out | attribute-references
everything in Python is an object with an identity, a type and a value | objects-values-and-types
objects that can change and ones that cannot, and when unused ones are cleaned up | objects-values-and-types
the hidden dictionary holding an object's attributes | class-instances | custom-classes
run code whenever someone makes a subclass of your class | object.__init_subclass__ | customizing-class-creation
a class of classes that controls how classes are built | metaclasses | determining-the-appropriate-metaclass | creating-the-class-object | uses-for-metaclasses
what metaclasses are good for, like enums and logging | uses-for-metaclasses
the order parent classes are searched in for a method | class.mro
list every class that inherits directly from a class | class.__subclasses__
change what isinstance says about your class | class.__instancecheck__ | customizing-instance-and-subclass-checks
change what issubclass reports for your class | class.__subclasscheck__ | customizing-instance-and-subclass-checks
let an attribute know the name it was given in a class | object.__set_name__
write list[int] style type hints with your own class | object.__class_getitem__ | emulating-generic-types | the-purpose-of-__class_getitem__
why special methods must be defined on the class and not the instance | special-method-lookup
methods with double underscores that let your class work with the built-in operators | special-method-names
a value meaning an operation is not supported for these types | notimplemented
the value meaning nothing at all, no result | none | the-null-object
the three dots object | ellipsis | the-ellipsis-object
let other code reach your object's memory without copying it | emulating-buffer-types | object.__buffer__
a class with a type parameter, like Bag[T] | generic-classes
# containers
make your class act like a list or a dictionary | emulating-container-types
tell len() how many items your object has | object.__len__
make obj[key] work on your class | object.__getitem__ | subscriptions
support assigning with obj[key] = value | object.__setitem__
make your object something a for loop can go through | object.__iter__
make the reversed() function work on your class | object.__reversed__
support the in operator on your class | object.__contains__ | membership-test-operations
a rough guess of how many items are left | object.__length_hint__
take part of a list with a start and a stop position | slicings | common-sequence-operations | slice-objects
get the item at a position in a list, or the value for a key | subscriptions
work out the start, stop and step a slice means for a given length | slice.indices
what every sequence can do, like length, smallest, largest and joining two | common-sequence-operations
add, insert and remove items in a list | mutable-sequence-types | list
sort a list of items in place | list
create a list with square brackets or a comprehension | list-displays | list
a fixed collection of items that cannot be changed | tuples | tuple | immutable-sequences
build a tuple, even one with a single item | tuple
a series of numbers for counting in a loop | ranges
a collection of unique items in no particular order | set-types
store values looked up by a key, like a phone book | mapping-types-dict | dictionaries | mappings
write a dictionary straight into code with curly braces | dictionary-displays
a live view of a dictionary's keys that changes when the dictionary does | dictionary-view-objects | dictview.mapping
the basic kinds of sequences: lists, tuples and ranges | sequence-types-list-tuple-range
sequences you cannot change, such as strings and tuples, and why they can be hashed | immutable-sequence-types | immutable-sequences
an object that stands for an open file | i-o-objects-also-known-as-file-objects
the record of where an error happened, call by call | traceback-objects | pdb-where
the compiled bytecode of a function | code-objects-2 | code-objects
the record of a running function's local variables and the line it is on | special-read-only-attributes-2 | special-writable-attributes | frame.clear
map each bytecode instruction back to its line and column in the source | codeobject.co_positions
commas between values making a tuple, and unpacking with a star | expression-lists
# the debugger
a tool to pause a program and look inside it step by step | pdb-the-python-debugger
pause the program at a certain line to look around | pdb-break | pdb.set_trace
put a line in your code that starts the debugger right there | pdb.set_trace | pdb-the-python-debugger
look at what went wrong after a program has already crashed | pdb.post_mortem | pdb.pm
run the next line of code without going into the functions it calls | pdb-next
show the chain of function calls that led to where you are stopped | pdb-where
show the lines of code around where the program is stopped | pdb-list
print the value of a variable while debugging | pdb-args
remove breakpoints | pdb-clear
switch a breakpoint off for a while without removing it | pdb-disable
only stop at a breakpoint when a condition is true | pdb-enable | pdb-break
keep running until you are past the end of a loop | pdb-until
skip ahead or go back to another line while debugging | pdb-jump
leave the debugger | pdb-quit
get a list of the debugger's commands | pdb-help | debugger-commands
run one function call under the debugger | pdb.runcall
"""


def _parse(table: str) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    rows = []
    for line in table.strip().splitlines():
        if not line.startswith("#"):
            question, written_for, *others = (cell.strip() for cell in line.split(" | "))
            rows.append((question, written_for, tuple(others)))
    return tuple(rows)


_OFF_TOPIC = """
how long to boil an egg so the yolk stays soft
the best time of year to plant tulip bulbs
how to get chewing gum out of hair
which wine goes well with grilled fish
how to train a puppy to sit
the height of the Eiffel Tower
what causes hiccups and how to stop them
how to iron a shirt without creases
who painted the ceiling of the Sistine Chapel
how far is the moon from the earth
a good stretch for a sore lower back
how to knit a scarf for beginners
when do swallows fly south for the winter
how to make pancakes without eggs
the rules of chess for moving a knight
how to clean a cast iron frying pan
why do onions make you cry
the oldest university in Europe
how to save money on the weekly food shop
what to pack for a week of camping
how to repot a cactus without getting pricked
the first person to climb Mount Everest
how to unblock a bathroom sink
how many bones are in the human hand
a polite way to decline a wedding invitation
the difference between weather and climate
how to keep cut flowers fresh for longer
which vitamins are in oranges
how to paint a room without streaks
how do submarines dive and come back up
the story of Romeo and Juliet in short
how to choose running shoes for flat feet
why does bread go stale
the main ingredients of a Greek salad
how to stop a cat scratching the sofa
how volcanoes form
how to write a thank you note to a teacher
the time difference between London and Tokyo
how to sharpen a kitchen knife
what whales eat
"""

#: (question, passage it was written for, other acceptable passages)
LAY_QUESTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = _parse(_QUESTIONS)

#: Everyday questions no Python reference passage answers.
OFF_TOPIC_QUESTIONS: tuple[str, ...] = tuple(
    line.strip() for line in _OFF_TOPIC.strip().splitlines()
)
