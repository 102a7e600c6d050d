import { FeaturePending } from '../../components/FeaturePending.tsx';

export default function ExportPage() {
  return <FeaturePending titleKey="pages.export" />;
}
