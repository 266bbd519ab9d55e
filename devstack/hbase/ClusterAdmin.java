// Operations on one HBase cluster that its Thrift (v1) gateway does not offer, through HBase's
// own Admin API. devstack.hbase.admin compiles it once into the user's cache (one folder per
// version of this file) and runs it with the gateway's configuration:
//
//   java -cp <classes>:<gateway conf>:<HBase jars> ClusterAdmin flush TABLE
//   java -cp <classes>:<gateway conf>:<HBase jars> ClusterAdmin major-compact TABLE
//   java -cp <classes>:<gateway conf>:<HBase jars> ClusterAdmin regions TABLE
//   java -cp <classes>:<gateway conf>:<HBase jars> ClusterAdmin block-cache TABLE
//
// major-compact flushes the memstores first (a compaction only rewrites files) and returns
// once every region of TABLE has been major-compacted since the command started.
// block-cache turns the region servers' block cache on for every family of TABLE that has it
// off (a table created through the Thrift gateway without asking for it), prints each family
// it changed, and returns once the table's regions have reopened with it.

import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;

public class ClusterAdmin {
    private static final long TIMEOUT_MS = 120_000;

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: ClusterAdmin flush|major-compact|regions|block-cache TABLE");
            System.exit(2);
        }
        Configuration conf = HBaseConfiguration.create();
        TableName table = TableName.valueOf(args[1]);
        try (Connection connection = ConnectionFactory.createConnection(conf);
             Admin admin = connection.getAdmin()) {
            if (!admin.tableExists(table)) {
                System.err.println("no table " + table + " on this cluster");
                System.exit(1);
            }
            switch (args[0]) {
                case "flush" -> admin.flush(table);
                case "major-compact" -> majorCompact(admin, table);
                case "block-cache" -> blockCache(admin, table);
                case "regions" -> {
                    List<RegionInfo> regions = admin.getRegions(table);
                    for (RegionInfo region : regions) {
                        System.out.println(region.getRegionNameAsString());
                    }
                }
                default -> {
                    System.err.println("unknown command: " + args[0]);
                    System.exit(2);
                }
            }
        }
    }

    private static void blockCache(Admin admin, TableName table) throws Exception {
        for (ColumnFamilyDescriptor family : admin.getDescriptor(table).getColumnFamilies()) {
            if (family.isBlockCacheEnabled()) {
                continue;
            }
            admin.modifyColumnFamily(table, ColumnFamilyDescriptorBuilder.newBuilder(family)
                    .setBlockCacheEnabled(true).build());
            System.out.println(family.getNameAsString() + ": block cache on");
        }
    }

    private static void majorCompact(Admin admin, TableName table) throws Exception {
        long started = System.currentTimeMillis();
        admin.flush(table);
        admin.majorCompact(table);
        long deadline = started + TIMEOUT_MS;
        while (admin.getLastMajorCompactionTimestamp(table) < started
                || admin.getCompactionState(table) != CompactionState.NONE) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(table + " was not major-compacted within "
                        + TIMEOUT_MS / 1000 + "s");
            }
            Thread.sleep(100);
        }
    }
}
