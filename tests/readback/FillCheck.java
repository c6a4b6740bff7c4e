// Independent read-back of filled forms: hwpxlib (HWPX) and hwplib (HWP 5.0), neolord0's Java
// readers, run by tests/test_fill_readback.py as a single-file program:
//   java -cp hwpxlib.jar:hwplib.jar FillCheck.java hwpx|hwp FILE [FIELD...]
// prints the document's text, then one line per FIELD: "FIELD\t<its click-here text>" (HWP only;
// hwpxlib has no field finder, its text is checked instead), then for HWP one line per table cell
// (tables in cells too): "CELL\t<row,col of each cell from the outermost table in>\t<its field
// name>\t<the list header's paragraph count>\t<each paragraph's last-in-list bit, 0/1>\t<its
// paragraphs' text, \n between>".
import java.util.ArrayList;

public class FillCheck {
    public static void main(String[] args) throws Exception {
        String format = args[0];
        String path = args[1];
        if (format.equals("hwpx")) {
            var file = kr.dogfoot.hwpxlib.reader.HWPXReader.fromFilepath(path);
            String text = kr.dogfoot.hwpxlib.tool.textextractor.TextExtractor.extract(
                file,
                kr.dogfoot.hwpxlib.tool.textextractor.TextExtractMethod.InsertControlTextBetweenParagraphText,
                true,
                new kr.dogfoot.hwpxlib.tool.textextractor.TextMarks());
            System.out.println(text);
            return;
        }
        var file = kr.dogfoot.hwplib.reader.HWPReader.fromFile(path);
        var method = kr.dogfoot.hwplib.tool.textextractor.TextExtractMethod.InsertControlTextBetweenParagraphText;
        System.out.println(kr.dogfoot.hwplib.tool.textextractor.TextExtractor.extract(file, method));
        for (int i = 2; i < args.length; i++) {
            ArrayList<String> texts =
                kr.dogfoot.hwplib.tool.objectfinder.FieldFinder.getAllClickHereText(file, args[i], method);
            for (String t : texts) {
                System.out.println("FIELD\t" + args[i] + "\t" + escaped(t));
            }
        }
        for (var section : file.getBodyText().getSectionList()) {
            for (var paragraph : section) {
                cells(paragraph, "");
            }
        }
    }

    static String escaped(String t) {
        return t.replace("\n", "\\n").replace("\r", "\\r");
    }

    static void cells(kr.dogfoot.hwplib.object.bodytext.paragraph.Paragraph paragraph, String chain)
            throws Exception {
        if (paragraph.getControlList() == null) {
            return;
        }
        for (var control : paragraph.getControlList()) {
            if (!(control instanceof kr.dogfoot.hwplib.object.bodytext.control.ControlTable table)) {
                continue;
            }
            for (var row : table.getRowList()) {
                for (var cell : row.getCellList()) {
                    var head = cell.getListHeader();
                    String at = chain + (chain.isEmpty() ? "" : "/") + head.getRowIndex() + "," + head.getColIndex();
                    StringBuilder last = new StringBuilder();
                    ArrayList<String> lines = new ArrayList<>();
                    for (var p : cell.getParagraphList()) {
                        last.append(p.getHeader().isLastInList() ? "1" : "0");
                        String text = p.getNormalString();
                        lines.add(text == null ? "" : text);
                    }
                    String name = head.getFieldName() == null ? "" : head.getFieldName();
                    System.out.println("CELL\t" + at + "\t" + name + "\t" + head.getParaCount() + "\t" + last
                        + "\t" + escaped(String.join("\n", lines)));
                    for (var p : cell.getParagraphList()) {
                        cells(p, at);
                    }
                }
            }
        }
    }
}
