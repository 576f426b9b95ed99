#!/bin/sh
# Count the words of words.txt, most frequent first.
tr -s ' ' '\n' < words.txt | sort | uniq -c | sort -rn > counts.txt
echo "counted $(wc -w < words.txt) words"
