import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function StatisticsPage() {
  return <FeaturePending titleKey="pages.statistics" />;
}
