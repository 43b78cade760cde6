// The script that ReduceDemoTests runs, and what the demo prints for it.

/// Every command, with bad input in between: an empty text, a missing, malformed or
/// out-of-range number, an unknown filter, a stray argument, a failing load, an unknown command,
/// and a line after `quit` that must not run.
let everyCommand = [
  "# Every command of reduce-demo, with bad input in between.",
  "help",
  "add Buy milk",
  "add Call Ada",
  "add   ",
  "add Water the plants",
  "done 2",
  "done",
  "done 9",
  "undo-done 2",
  "done 2",
  "rename 1 Buy oat milk",
  "rename 1 Buy oat milk and eggs",
  "rename 3",
  "remove 3",
  "remove zero",
  "filter open",
  "filter done",
  "filter weekly",
  "filter all",
  "undo",
  "undo",
  "redo",
  "history",
  "history now",
  "load",
  "load no-such-list.txt",
  "log 3",
  "log -1",
  "frobnicate",
  "quit",
  "add Never added",
]

/// What `everyCommand` prints, with the state file and log paths written `STATE` and `LOG`.
let everyCommandTranscript = """
  reduce-demo: a to-do list on a Reduce store. Type help for the commands.
  List: STATE (new)
  Log:  LOG
     (the list is empty: add TEXT adds an item)
  0 items, 0 open, 0 done | filter: all | cannot undo | cannot redo
  > help
  Commands (N is an item's number in the list as shown):
    add TEXT           add an item
    done N             mark an item done
    undo-done N        mark an item not done
    rename N TEXT      rename an item (renames of one item in a row undo as one step)
    remove N           remove an item
    filter all|open|done
                       choose which items the list shows (not undoable)
    undo, redo         step through the history of the list
    history            what undo and redo would do
    load [FILE]        add the starter list, or the lines of FILE (a thunk, with progress)
    log [N]            the last N entries of the audit log (5 by default)
    help               this text
    quit               save and leave (end of input does the same)
  Control characters in titles and file names are shown escaped: ESC as \\u{1B}.
     (the list is empty: add TEXT adds an item)
  0 items, 0 open, 0 done | filter: all | cannot undo | cannot redo
  > add Buy milk
  Added "Buy milk".
  * 1. [ ] Buy milk
  1 item, 1 open, 0 done | filter: all | can undo (Add) | cannot redo
  > add Call Ada
  Added "Call Ada".
    1. [ ] Buy milk
  * 2. [ ] Call Ada
  2 items, 2 open, 0 done | filter: all | can undo (Add) | cannot redo
  > add
  error: add needs a text: add TEXT
  > add Water the plants
  Added "Water the plants".
    1. [ ] Buy milk
    2. [ ] Call Ada
  * 3. [ ] Water the plants
  3 items, 3 open, 0 done | filter: all | can undo (Add) | cannot redo
  > done 2
  Done: "Call Ada".
    1. [ ] Buy milk
  * 2. [x] Call Ada
    3. [ ] Water the plants
  3 items, 2 open, 1 done | filter: all | can undo (Done) | cannot redo
  > done
  error: done needs an item number: done N
  > done 9
  error: there is no item 9: the list shows 1 to 3
  > undo-done 2
  Not done: "Call Ada".
    1. [ ] Buy milk
  * 2. [ ] Call Ada
    3. [ ] Water the plants
  3 items, 3 open, 0 done | filter: all | can undo (Reopen) | cannot redo
  > done 2
  Done: "Call Ada".
    1. [ ] Buy milk
  * 2. [x] Call Ada
    3. [ ] Water the plants
  3 items, 2 open, 1 done | filter: all | can undo (Done) | cannot redo
  > rename 1 Buy oat milk
  Renamed to "Buy oat milk".
  * 1. [ ] Buy oat milk
    2. [x] Call Ada
    3. [ ] Water the plants
  3 items, 2 open, 1 done | filter: all | can undo (Rename) | cannot redo
  > rename 1 Buy oat milk and eggs
  Renamed to "Buy oat milk and eggs".
  * 1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
    3. [ ] Water the plants
  3 items, 2 open, 1 done | filter: all | can undo (Rename) | cannot redo
  > rename 3
  error: rename needs a text: rename N TEXT
  > remove 3
  Removed "Water the plants".
    1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
  2 items, 1 open, 1 done | filter: all | can undo (Remove) | cannot redo
  > remove zero
  error: "zero" is not an item number: remove N
  > filter open
  Showing open items.
    1. [ ] Buy oat milk and eggs
  2 items, 1 open, 1 done | filter: open | can undo (Remove) | cannot redo
  > filter done
  Showing done items.
    1. [x] Call Ada
  2 items, 1 open, 1 done | filter: done | can undo (Remove) | cannot redo
  > filter weekly
  error: filter takes all, open or done, not "weekly"
  > filter all
  Showing all items.
    1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
  2 items, 1 open, 1 done | filter: all | can undo (Remove) | cannot redo
  > undo
  Undid Remove.
    1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
    3. [ ] Water the plants
  3 items, 2 open, 1 done | filter: all | can undo (Rename) | can redo (Remove)
  > undo
  Undid Rename.
    1. [ ] Buy milk
    2. [x] Call Ada
    3. [ ] Water the plants
  3 items, 2 open, 1 done | filter: all | can undo (Done) | can redo (Rename)
  > redo
  Redid Rename.
    1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
    3. [ ] Water the plants
  3 items, 2 open, 1 done | filter: all | can undo (Rename) | can redo (Remove)
  > history
  History: 7 steps to undo (next: Rename); 1 step to redo (next: Remove). At most 100 steps are kept.
    1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
    3. [ ] Water the plants
  3 items, 2 open, 1 done | filter: all | can undo (Rename) | can redo (Remove)
  > history now
  error: history takes no argument
  > load
  Loading the starter list...
    1/3
    2/3
    3/3
  Loaded 3 items from the starter list.
    1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
    3. [ ] Water the plants
    4. [ ] Read Guides/Concepts.md
    5. [ ] Rename an item twice, then undo once
    6. [ ] Run reduce-audit verify on the log
  6 items, 5 open, 1 done | filter: all | can undo (Load) | cannot redo
  > load no-such-list.txt
  Could not load no-such-list.txt: there is no such file.
    1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
    3. [ ] Water the plants
    4. [ ] Read Guides/Concepts.md
    5. [ ] Rename an item twice, then undo once
    6. [ ] Run reduce-audit verify on the log
  6 items, 5 open, 1 done | filter: all | can undo (Load) | cannot redo
  > log 3
  Last 3 entries of LOG:
    #11 ReplaceState<AppState> ok | changed todos.items[0].title
    #12 ReplaceState<AppState> ok | changed todos.items[0].title
    #13 LoadAction {"succeeded":{"source":"the starter list","titles":["Read Guides/Concepts.md","Rename an item twice, then undo once","Run reduce-aud...
    1. [ ] Buy oat milk and eggs
    2. [x] Call Ada
    3. [ ] Water the plants
    4. [ ] Read Guides/Concepts.md
    5. [ ] Rename an item twice, then undo once
    6. [ ] Run reduce-audit verify on the log
  6 items, 5 open, 1 done | filter: all | can undo (Load) | cannot redo
  > log -1
  error: log takes a number of entries, like log 10
  > frobnicate
  error: unknown command "frobnicate"; type help for the list
  > quit
  Saved 6 items to STATE.
  Audit log: LOG (check it: reduce-audit verify LOG)

  """
